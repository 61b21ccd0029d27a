// core/stats/BandVerdicts: which band is the reference and how each other run stands
// against it, checked against Student's t with 2 degrees of freedom, whose tail has a
// closed form (P(T > t) = 1/2 - t / (2 sqrt(t^2 + 2))), on hand-made runs.
#include <QtTest/QtTest>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "stats/BandVerdicts.h"

using namespace ampscope::stats;
using nlohmann::json;

namespace {

json config(const std::string& mode, std::uint64_t seed) {
    return json{{"name", "mlp-" + mode + " seed " + std::to_string(seed)},
                {"seed", seed},
                {"precision", {{"mode", mode}}},
                {"model", {{"name", "mlp"}}}};
}

BandCandidate run(const std::string& mode, std::uint64_t seed, double valLoss, double valAccuracy,
                  std::vector<StepValue> smoothed = {}) {
    return {"mlp-" + mode + " seed " + std::to_string(seed), config(mode, seed), valLoss, valAccuracy,
            std::move(smoothed)};
}

// Student's t with 2 degrees of freedom: the upper tail, in closed form.
double upperTail2(double t) { return 0.5 - t / (2.0 * std::sqrt(t * t + 2.0)); }

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

class BandVerdictsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theFp32SeedsAreTheReferenceWhereverTheyAre() {
        const std::vector<BandCandidate> runs{run("bf16", 1, 0.6, 0.9), run("bf16", 2, 0.64, 0.9),
                                              run("fp32", 1, 0.5, 0.9), run("fp32", 2, 0.54, 0.92)};
        const BandVerdicts verdicts = bandVerdicts(runs);
        QCOMPARE(verdicts.reference, (std::vector<std::size_t>{2, 3}));
        QCOMPARE(verdicts.compared.size(), std::size_t{1});
        QCOMPARE(verdicts.compared[0].runs, (std::vector<std::size_t>{0, 1}));
    }

    void withoutFp32TheFirstGroupIsTheReference() {
        const std::vector<BandCandidate> runs{run("fp16", 9, 0.7, 0.8), run("bf16", 1, 0.6, 0.9),
                                              run("bf16", 2, 0.64, 0.9), run("fp16", 1, 0.5, 0.9),
                                              run("fp16", 2, 0.54, 0.92)};
        const BandVerdicts verdicts = bandVerdicts(runs);
        QCOMPARE(verdicts.reference, (std::vector<std::size_t>{0, 3, 4}));
        QCOMPARE(verdicts.compared.size(), std::size_t{1});
        QCOMPARE(verdicts.compared[0].runs, (std::vector<std::size_t>{1, 2}));
    }

    void noSeedsNoBand() {
        const BandVerdicts verdicts = bandVerdicts({run("fp32", 1, 0.5, 0.9), run("bf16", 1, 0.6, 0.9)});
        QVERIFY(verdicts.reference.empty());
        QVERIFY(verdicts.compared.empty());
        QVERIFY(bandVerdictLines(verdicts, {}).empty());
    }

    // Two seeds a side with equal spreads: Welch's df is exactly 2, so p has a closed form.
    void aGroupIsJudgedByWelchTowardTheWorseSide() {
        const std::vector<BandCandidate> runs{run("fp32", 1, 0.50, 0.90), run("fp32", 2, 0.54, 0.92),
                                              run("bf16", 1, 0.60, 0.91), run("bf16", 2, 0.64, 0.93)};
        const ComparedVerdict v = bandVerdicts(runs).compared.at(0);
        QVERIFY(v.welch);
        // loss: t = 0.10 / sqrt(2 * 0.04^2/2 / 2) with s = 0.04/sqrt(2) per side.
        const double s = 0.04 / std::sqrt(2.0);
        const double tLoss = 0.10 / std::sqrt(2.0 * s * s / 2.0);
        QVERIFY(near(v.valLoss.df, 2.0));
        QVERIFY2(near(v.valLoss.p, upperTail2(tLoss)), qPrintable(QString::number(v.valLoss.p)));
        QCOMPARE(v.valLoss.label, Label::Outside);  // p = 0.036
        // accuracy: the compared seeds are higher, the worse side is lower: p = P(T < t) > 1/2.
        const double sa = 0.02 / std::sqrt(2.0);
        const double tAcc = 0.01 / std::sqrt(2.0 * sa * sa / 2.0);
        QVERIFY(near(v.valAccuracy.p, 1.0 - upperTail2(tAcc)));
        QCOMPARE(v.valAccuracy.label, Label::Inside);
        const std::vector<std::string> lines = bandVerdictLines(bandVerdicts(runs), runs);
        QCOMPARE(lines.size(), std::size_t{2});
        QVERIFY2(lines[1].find("val loss outside (Welch p = 0.036)") != std::string::npos, lines[1].c_str());
        QVERIFY2(lines[1].find("(2 seeds)") != std::string::npos, lines[1].c_str());
    }

    // One run against three seeds: t = (x - mean) / (s sqrt(1 + 1/3)), two-sided, df 2.
    void aLoneRunIsOutsideExactlyWhenOutsideTheBand() {
        const std::vector<double> seeds{0.50, 0.52, 0.54};  // mean 0.52, s 0.02
        for (const double x : {0.60, 0.65, 0.40}) {
            std::vector<BandCandidate> runs;
            for (std::size_t k = 0; k < seeds.size(); ++k) runs.push_back(run("fp32", k + 1, seeds[k], NAN));
            runs.push_back(run("fp16", 1, x, NAN));
            const ComparedVerdict v = bandVerdicts(runs).compared.at(0);
            QVERIFY(!v.welch);
            const double t = std::abs(x - 0.52) / (0.02 * std::sqrt(1.0 + 1.0 / 3.0));
            QVERIFY2(near(v.valLoss.p, 2.0 * upperTail2(t)), qPrintable(QString::number(v.valLoss.p)));
            const double halfWidth = 4.302652729911275 * 0.02 * std::sqrt(4.0 / 3.0);  // t(0.975, 2), a table's
            const bool outside = std::abs(x - 0.52) > halfWidth;
            QCOMPARE(v.valLoss.label, outside ? Label::Outside : Label::Inside);
            QCOMPARE(v.valAccuracy.label, Label::NoBand);  // regression-like: no accuracy anywhere
        }
    }

    void aRunWithoutValidationHasNoLabel() {
        const ComparedVerdict v =
            bandVerdicts({run("fp32", 1, 0.5, 0.9), run("fp32", 2, 0.54, 0.92), run("fp16", 1, NAN, NAN)})
                .compared.at(0);
        QCOMPARE(v.valLoss.label, Label::NoBand);
        QCOMPARE(v.valAccuracy.label, Label::NoBand);
    }

    void stepRangesAreWhereTheSmoothedLossLeavesTheBand() {
        std::vector<StepValue> a, b, c;
        for (int64_t step = 1; step <= 6; ++step) {
            a.push_back({step, 1.0});
            b.push_back({step, 1.2});
            // band: 1.1 +- t(0.975, 1) 0.1414 sqrt(1.5) = 1.1 +- 2.2: 5 is above it, 3.2 inside.
            c.push_back({step, step == 3 || step == 4 ? 5.0 : (step == 6 ? 3.2 : 1.1)});
        }
        const std::vector<BandCandidate> runs{run("fp32", 1, 0.5, 0.9, a), run("fp32", 2, 0.54, 0.92, b),
                                              run("fp16", 1, 0.52, 0.91, c)};
        const ComparedVerdict v = bandVerdicts(runs).compared.at(0);
        QCOMPARE(v.outside.size(), std::size_t{1});
        QCOMPARE(v.outside[0].size(), std::size_t{1});
        QCOMPARE(v.outside[0][0].first, int64_t{3});
        QCOMPARE(v.outside[0][0].last, int64_t{4});
        QVERIFY(v.outside[0][0].above);
        const std::vector<std::string> lines = bandVerdictLines(bandVerdicts(runs), runs);
        QCOMPARE(lines.size(), std::size_t{3});
        QCOMPARE(lines[2], std::string("  mlp-fp16 seed 1: smoothed loss left the band once, longest at steps 3-4 (above)"));
    }
};

QTEST_APPLESS_MAIN(BandVerdictsTest)
#include "test_band_verdicts.moc"
