// A job's ranks opened together: what their stores keep and how they are read. Each case
// checks against values this suite works out from the formula it wrote the runs with:
// - A band member's step series keep DecimatedSeries::kBandMemberBucketLimit buckets:
//   10^4 steps thin to buckets of 8, the first NaN at step 1000 and a planted spike and dip
//   stay at their steps, every bucket's first point is the step 1 + 8k with its own value;
//   a run of its own keeps all 10^4 steps as before.
// - What a thinned series keeps is, bucket by bucket, the contract's rule worked out here.
// - The band over thinned members is, at every step 1 + 8k and nowhere else, the median and
//   10/90% quantiles (numpy's linear rule, computed here) of the members' values there.
// - Opening a folder of 16 ranks and 3 runs of their own reads every run, in order, with
//   the ranks as band members and the 3 not, while no more than 8 runs are read at once
//   (ranks begun and not ended, counted at each progress report).
#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "ExactCompare.h"
#include "NumpyQuantile.h"
#include "config/ConfigJson.h"
#include "run/StepRecordCodec.h"
#include "runset/DecimatedSeries.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"
#include "views/ThroughputPlot.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

constexpr int64_t kSteps = 10000;
constexpr int64_t kNanStep = 1000, kSpikeStep = 5003, kDipStep = 7777;

double lossAt(int64_t step) {
    if (step == kNanStep) return std::nan("");
    if (step == kSpikeStep) return 50.0;
    if (step == kDipStep) return 1e-3;
    return 2.0 + std::sin(0.01 * static_cast<double>(step));
}

// A rank's samples/s: each rank apart by 10, with a wiggle of its own.
double rateAt(int rank, int64_t step) {
    return 1000.0 + 10.0 * rank + 3.0 * std::sin(0.37 * static_cast<double>(step) + rank);
}

std::vector<StepMetrics> stepsOf(int rank, int64_t count = kSteps) {
    std::vector<StepMetrics> steps;
    for (int64_t s = 1; s <= count; ++s) {
        StepMetrics m;
        m.step = s;
        m.epoch = 1;
        m.loss = lossAt(s);
        m.samplesPerSecond = rateAt(rank, s);
        m.stepSeconds = 256.0 / m.samplesPerSecond;
        m.scale = m.scaleAfter = 65536.0;
        steps.push_back(m);
    }
    return steps;
}

void writeRun(const QString& directory, const RunConfig& config, int rank, int64_t steps) {
    QDir().mkpath(directory);
    std::ofstream(QFile::encodeName(directory + "/config.json").toStdString()) << configToJson(config).dump();
    std::ofstream events(QFile::encodeName(directory + "/events.jsonl").toStdString());
    events << R"({"type":"run_start","schema_version":1,"device":"cpu","threads":1,"time":"2026-01-01T00:00:00Z"})"
           << '\n';
    std::string line;
    std::vector<StepMetrics> all = stepsOf(rank, steps);
    for (int64_t s = 0; s < steps; ++s) {
        line.clear();
        appendStepRecordText(all[static_cast<std::size_t>(s)], line);
        events << line << '\n';
    }
    events << R"({"type":"run_end","status":"finished"})" << '\n';
    std::ofstream(QFile::encodeName(directory + "/summary.json").toStdString()) << R"({"status":"finished"})";
}

RunContext rankContext(int rank, bool member) {
    RunContext context;
    context.title = QStringLiteral("rank-%1").arg(rank);
    context.runDirectory = QStringLiteral("/tmp/job/rank-%1").arg(rank);
    context.bandMember = member;
    return context;
}

}  // namespace

class GuiBandMemberStoresTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aBandMemberKeepsTheFirstNonFiniteStepAndItsExtremes() {
        RunSet set;
        RunModel* member = set.addRun(rankContext(0, true), {false, true});
        RunModel* single = set.addRun(rankContext(1, false), {false, true});
        member->appendSteps(stepsOf(0));
        single->appendSteps(stepsOf(0));
        const DecimatedSeries& loss = member->steps().loss();
        QCOMPARE(loss.bucketLimit(), DecimatedSeries::kBandMemberBucketLimit);
        // 10^4 points in at most 2048 buckets: buckets of 8 (1250 of them).
        QCOMPARE(loss.pointsPerBucket(), std::size_t{8});
        QVERIFY2(loss.size() <= 4 * 1250 && loss.size() < 5000, qPrintable(QString::number(loss.size())));
        QCOMPARE(loss.appendedCount(), kSteps);
        std::vector<double> nanSteps;
        bool spike = false, dip = false;
        for (std::size_t i = 0; i < loss.size(); ++i) {
            if (std::isnan(loss.y(i))) nanSteps.push_back(loss.x(i));
            spike = spike || (loss.x(i) == kSpikeStep && loss.y(i) == 50.0);
            dip = dip || (loss.x(i) == kDipStep && loss.y(i) == 1e-3);
        }
        QCOMPARE(nanSteps.size(), std::size_t{1});
        QCOMPARE_BITS(nanSteps[0], static_cast<double>(kNanStep));
        QVERIFY(spike);
        QVERIFY(dip);
        QCOMPARE(member->steps().firstNonFiniteLossStep(), kNanStep);
        QCOMPARE(member->steps().nonFiniteLosses().size(), std::size_t{1});
        QCOMPARE_BITS(member->steps().nonFiniteLosses().x(0), static_cast<double>(kNanStep));
        QCOMPARE_BITS(loss.maxY(), 50.0);
        QCOMPARE_BITS(loss.minY(), 1e-3);
        // A run of its own keeps every step, as before.
        QCOMPARE(single->steps().loss().bucketLimit(), DecimatedSeries::kDefaultBucketLimit);
        QCOMPARE(single->steps().loss().size(), static_cast<std::size_t>(kSteps));
    }

    void aMembersBucketFirstsAreEveryEighthStepWithItsValue() {
        RunSet set;
        RunModel* member = set.addRun(rankContext(3, true), {false, true});
        member->appendSteps(stepsOf(3));
        std::vector<double> xs, ys;
        member->steps().samplesPerSecond().bucketFirsts(xs, ys);
        QCOMPARE(xs.size(), std::size_t{1250});
        for (std::size_t k = 0; k < xs.size(); ++k) {
            const int64_t step = 1 + 8 * static_cast<int64_t>(k);
            QCOMPARE_BITS(xs[k], static_cast<double>(step));
            QCOMPARE_BITS(ys[k], rateAt(3, step));
        }
    }

    // The contract's rule worked out here for every bucket of a noisy series with NaNs and
    // ties (1000 points, 16 buckets at most: buckets of 64): its first point, its first
    // smallest and first largest finite y, its first non-finite y, in their order.
    void theKeptPointsAreEachBucketsFirstExtremesAndFirstNonFinite() {
        DecimatedSeries s(16);
        std::vector<double> ys;
        for (int i = 0; i < 1000; ++i) {
            double y = std::round(8.0 * std::sin(0.7 * i) + 3.0 * std::sin(0.13 * i * i));  // ties
            if (i % 97 == 5 || i % 211 == 7) y = std::nan("");
            if (i == 300) y = std::numeric_limits<double>::infinity();
            ys.push_back(y);
            s.append(i, y);
        }
        QCOMPARE(s.pointsPerBucket(), std::size_t{64});
        std::vector<double> keptX;
        for (int begin = 0; begin < 1000; begin += 64) {
            const int end = std::min(1000, begin + 64);
            int low = -1, high = -1, nonFinite = -1;
            for (int i = begin; i < end; ++i) {
                if (!std::isfinite(ys[i])) {
                    if (nonFinite < 0) nonFinite = i;
                    continue;
                }
                if (low < 0 || ys[i] < ys[low]) low = i;
                if (high < 0 || ys[i] > ys[high]) high = i;
            }
            std::vector<int> keep{begin};
            for (const int i : {low, high, nonFinite})
                if (i >= 0) keep.push_back(i);
            std::sort(keep.begin(), keep.end());
            keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
            for (const int i : keep) keptX.push_back(i);
        }
        QCOMPARE(s.size(), keptX.size());
        for (std::size_t k = 0; k < keptX.size(); ++k) {
            QCOMPARE_BITS(s.x(k), keptX[k]);
            QCOMPARE_BITS(s.y(k), ys[static_cast<std::size_t>(keptX[k])]);
        }
    }

    void theBandOfThinnedMembersIsTheirQuantilesAtTheSharedSteps() {
        constexpr int kRanks = 10;
        RunSet set;
        for (int r = 0; r < kRanks; ++r) set.addRun(rankContext(r, true), {false, true})->appendSteps(stepsOf(r));
        ThroughputPlot plot(&set);
        plot.resize(1280, 400);
        plot.refreshBands();
        QCOMPARE(plot.bands().size(), std::size_t{1});
        const QCPGraph* median = plot.bandMedianGraph(0, 0);
        const QCPGraph* low = plot.bandLowGraph(0, 0);
        const QCPGraph* high = plot.bandHighGraph(0, 0);
        QVERIFY(median && low && high);
        QCOMPARE(median->data()->size(), 1250);
        QCOMPARE(low->data()->size(), 1250);
        QCOMPARE(high->data()->size(), 1250);
        int k = 0;
        for (auto it = median->data()->constBegin(); it != median->data()->constEnd(); ++it, ++k) {
            const int64_t step = 1 + 8 * static_cast<int64_t>(k);
            QCOMPARE_BITS(it->key, static_cast<double>(step));
            std::vector<double> values;
            for (int r = 0; r < kRanks; ++r) values.push_back(rateAt(r, step));
            // Selection and sort interpolate the same two order statistics, but the order of
            // the subtraction may differ in the last bit: 1e-9 of values near 10^3.
            QVERIFY(std::abs(it->value - test::numpyQuantile(values, 0.5)) < 1e-9);
            QVERIFY(std::abs((low->data()->constBegin() + k)->value - test::numpyQuantile(values, 0.1)) < 1e-9);
            QVERIFY(std::abs((high->data()->constBegin() + k)->value - test::numpyQuantile(values, 0.9)) < 1e-9);
        }
    }

    void aFolderOfRanksIsReadAFewAtATimeWithTheRanksAsBandMembers() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        constexpr int kRanks = 16;
        constexpr int64_t kRankSteps = 20000;  // 3 batches each: reports while several read
        RunConfig config;
        QStringList directories;
        for (int r = 0; r < kRanks; ++r) {
            directories << tmp.filePath(QStringLiteral("job/rank-%1").arg(r));
            writeRun(directories.back(), config, r, kRankSteps);
        }
        for (int k = 0; k < 3; ++k) {
            RunConfig own;
            own.optim.lr = 0.001 * (k + 1);  // three configs: no seed group
            directories << tmp.filePath(QStringLiteral("own-%1").arg(k));
            writeRun(directories.back(), own, k, 100);
        }
        RunSet set;
        // At each progress report, the ranks begun and not ended: those being read.
        int most = 0;
        const std::vector<LoadedRun> loaded = loadRunDirectories(set, directories, {false, true}, [&](double) {
            int reading = 0;
            for (const RunModel* run : set.runs())
                if (run->steps().stepCount() > 0 && run->steps().stepCount() < kRankSteps &&
                    run->directory().contains(QStringLiteral("/job/")))
                    ++reading;
            most = std::max(most, reading);
        });
        QCOMPARE(loaded.size(), std::size_t{kRanks + 3});
        for (int i = 0; i < kRanks + 3; ++i) {
            const LoadedRun& run = loaded[static_cast<std::size_t>(i)];
            QVERIFY2(run.run, qPrintable(run.error));
            QCOMPARE(run.run->directory(), QDir::cleanPath(directories[i]));
            QCOMPARE(run.run->status(), QStringLiteral("finished"));
            QCOMPARE(run.run->context().bandMember, i < kRanks);
            QCOMPARE(run.run->steps().stepCount(), i < kRanks ? kRankSteps : int64_t{100});
        }
        // Runs of one size started together end together: a report right then finds none
        // begun. No report with one: nothing was counted.
        if (most == 0) QSKIP("no progress report came while a rank was being read: nothing counted");
        QVERIFY2(most <= 8, qPrintable(QStringLiteral("%1 ranks read at once").arg(most)));
    }
};

QTEST_MAIN(GuiBandMemberStoresTest)
#include "test_gui_band_member_stores.moc"
