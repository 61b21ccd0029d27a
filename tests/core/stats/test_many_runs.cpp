// core/stats/ManyRuns: which runs are drawn as one band (a job's ranks, many seeds), the
// band's quantiles recomputed here by this suite's own sort-and-interpolate loop, and the
// outlier rules (stragglers, a departing member) on planted members.
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "NumpyQuantile.h"
#include "stats/ManyRuns.h"

using namespace ampscope::stats;
using nlohmann::json;

namespace {

json seedConfig(int seed) {
    return json{{"name", "mlp seed " + std::to_string(seed)}, {"seed", seed}, {"precision", {{"mode", "fp16"}}}};
}

std::vector<RunIdentity> job(const std::string& folder, int ranks) {
    std::vector<RunIdentity> runs;
    for (int r = 0; r < ranks; ++r) runs.push_back({folder + "/rank-" + std::to_string(r), json{{"seed", 1}}});
    return runs;
}

// Owns a member's steps and values; MemberSeries points into them.
struct Member {
    std::vector<double> steps, values;
    MemberSeries view() const { return {steps.data(), values.data(), steps.size()}; }
};

}  // namespace

class ManyRunsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aJobOfEightRanksOrMoreIsOneGroup() {
        const std::vector<ManyRunGroup> groups = manyRunGroups(job("/runs/job", 8));
        QCOMPARE(groups.size(), std::size_t{1});
        QVERIFY(groups[0].kind == ManyRunKind::JobRanks);
        QCOMPARE(groups[0].job, std::string("/runs/job"));
        QCOMPARE(groups[0].members, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    }

    void aSmallJobOrFewSeedsIsNoBand() {
        QVERIFY(manyRunGroups(job("/runs/job", 7)).empty());
        std::vector<RunIdentity> seeds;
        for (int s = 0; s < 7; ++s) seeds.push_back({"/runs/seed-" + std::to_string(s), seedConfig(s)});
        QVERIFY(manyRunGroups(seeds).empty());  // 7 seeds: today's seed band, not this
    }

    void manySeedsOfOneConfigAreAGroupAndOtherRunsStayOut() {
        std::vector<RunIdentity> runs;
        runs.push_back({"/runs/other", json{{"precision", {{"mode", "bf16"}}}}});
        for (int s = 0; s < 9; ++s) runs.push_back({"/runs/seed-" + std::to_string(s), seedConfig(s)});
        for (const RunIdentity& rank : job("/runs/job", 10)) runs.push_back(rank);
        const std::vector<ManyRunGroup> groups = manyRunGroups(runs);
        QCOMPARE(groups.size(), std::size_t{2});
        QVERIFY(groups[0].kind == ManyRunKind::Seeds);
        QCOMPARE(groups[0].members.size(), std::size_t{9});
        QCOMPARE(groups[0].members.front(), std::size_t{1});
        QVERIFY(groups[1].kind == ManyRunKind::JobRanks);
        QCOMPARE(groups[1].members.size(), std::size_t{10});
        QCOMPARE(groups[1].members.front(), std::size_t{10});
    }

    void jobFolderOfARankDirectory() {
        QCOMPARE(jobOfDirectory("/a/job/rank-12"), std::string("/a/job"));
        QCOMPARE(jobOfDirectory("/a/job/rank-12/"), std::string("/a/job"));
        QCOMPARE(jobOfDirectory("/a/job/rank-x"), std::string());
        QCOMPARE(jobOfDirectory("/a/job/seed-1"), std::string());
        QCOMPARE(jobOfDirectory(""), std::string());
    }

    // 11 members with values in a scrambled order at each step, one of them NaN at step 2
    // and one missing step 3: the band's median and 10/90% quantiles at each step are this
    // suite's own sort-and-interpolate over the members that have a finite value there.
    void theBandIsTheQuantilesOfTheMembersAtEachStep() {
        std::vector<Member> members(11);
        for (int m = 0; m < 11; ++m)
            for (int step = 1; step <= 4; ++step) {
                if (m == 4 && step == 3) continue;
                members[m].steps.push_back(step);
                const double v = std::fmod(7.3 * m + 3.1 * step * step, 5.0) + 0.01 * m;
                members[m].values.push_back(m == 2 && step == 2 ? std::nan("") : v);
            }
        std::vector<MemberSeries> views;
        for (const Member& m : members) views.push_back(m.view());
        const std::vector<QuantileBandPoint> band = quantileBandSeries(views);
        QCOMPARE(band.size(), std::size_t{4});
        for (const QuantileBandPoint& point : band) {
            std::vector<double> at;
            for (const Member& m : members)
                for (std::size_t i = 0; i < m.steps.size(); ++i)
                    if (m.steps[i] == static_cast<double>(point.step) && std::isfinite(m.values[i]))
                        at.push_back(m.values[i]);
            QCOMPARE(point.members, static_cast<int>(at.size()));
            // Interpolation between the same two values: equal to rounding (3 ulps of 5).
            constexpr double kTolerance = 1e-14;
            QVERIFY(std::abs(point.low - ampscope::test::numpyQuantile(at, 0.10)) < kTolerance);
            QVERIFY(std::abs(point.median - ampscope::test::numpyQuantile(at, 0.50)) < kTolerance);
            QVERIFY(std::abs(point.high - ampscope::test::numpyQuantile(at, 0.90)) < kTolerance);
        }
        QCOMPARE(band[1].members, 10);  // the NaN left out
        QCOMPARE(band[2].members, 10);  // the missing step left out
    }

    // Quantiles by hand: 0..9, q = 0.1 -> h = 0.9 -> 0.9; median 4.5; q = 0.9 -> 8.1.
    void quantilesOfZeroToNine() {
        std::vector<Member> members(10);
        for (int m = 0; m < 10; ++m) members[m] = {{1.0}, {static_cast<double>(9 - m)}};
        std::vector<MemberSeries> views;
        for (const Member& m : members) views.push_back(m.view());
        const QuantileBandPoint p = quantileBandSeries(views).at(0);
        QVERIFY(std::abs(p.low - 0.9) < 1e-15);
        QCOMPARE_BITS(p.median, 4.5);
        QVERIFY(std::abs(p.high - 8.1) < 1e-14);
    }

    void aStepOnlyAFewMembersReachedIsNoBandPoint() {
        std::vector<Member> members(10);
        for (int m = 0; m < 10; ++m) {
            members[m] = {{1.0, 2.0}, {1.0, 1.0}};
            if (m < 4) members[m].steps.push_back(3.0), members[m].values.push_back(1.0);  // 4 of 10 at step 3
        }
        std::vector<MemberSeries> views;
        for (const Member& m : members) views.push_back(m.view());
        const std::vector<QuantileBandPoint> band = quantileBandSeries(views);
        QCOMPARE(band.size(), std::size_t{2});
        QCOMPARE(band.back().step, int64_t{2});
    }

    // Median step times 10, 10, 11, 9, 10, 16, 10, 14.9 ms: the median of them is 10, so
    // past 15 ms is a straggler: only the 16 ms member (14.9 is not past 1.5 x 10).
    void aStragglerIsPastOneAndAHalfTimesTheTypicalStepTime() {
        QCOMPARE(stragglers({10, 10, 11, 9, 10, 16, 10, 14.9}), std::vector<std::size_t>{5});
        QCOMPARE(stragglers({10, std::nan(""), 30}), std::vector<std::size_t>{});  // median 20: none past 30
        QCOMPARE(stragglers({10}), std::vector<std::size_t>{});
    }

    // A band of 100 points, 1 to 2 wide: a member more than one width above its top (past
    // 3) for 10 points is departing; for 9 points, or only just above the band, it is not.
    void aMemberDepartsWhenFarOutsideForATenthOfTheRun() {
        std::vector<QuantileBandPoint> band;
        for (int s = 1; s <= 100; ++s) band.push_back({s, 10, 1.0, 1.5, 2.0});
        const auto memberWith = [](int from, int to, double value) {
            Member m;
            for (int s = 1; s <= 100; ++s) {
                m.steps.push_back(s);
                m.values.push_back(s >= from && s <= to ? value : 1.5);
            }
            return m;
        };
        const Member departing = memberWith(40, 49, 3.5);
        const std::optional<StepRange> range = departure(band, departing.view());
        QVERIFY(range.has_value());
        QCOMPARE(range->first, int64_t{40});
        QCOMPARE(range->last, int64_t{49});
        QVERIFY(range->above);
        QVERIFY(!departure(band, memberWith(40, 48, 3.5).view()));   // 9 points: not sustained
        QVERIFY(!departure(band, memberWith(1, 100, 2.9).view()));   // outside the band, within a width
        const std::optional<StepRange> below = departure(band, memberWith(60, 80, -0.5).view());
        QVERIFY(below.has_value() && !below->above);
    }
};

QTEST_APPLESS_MAIN(ManyRunsTest)
#include "test_many_runs.moc"
