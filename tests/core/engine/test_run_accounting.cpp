// What a run adds up for summary.json (RunAccounting) and when its watchpoints fire
// (watchpointsFired), apart from the run loop: counts, means and reasons against values
// worked out by hand.
#include <QtTest/QtTest>
#include <cmath>

#include "ExactCompare.h"
#include "engine/RunAccounting.h"
#include "engine/Watchpoints.h"

using namespace ampscope;

namespace {

StepMetrics stepOf(int64_t step, double loss, double seconds) {
    StepMetrics m;
    m.step = step;
    m.loss = loss;
    m.stepSeconds = seconds;
    return m;
}

LayerProbe probedLayer(const std::string& name, bool hasParameters, int64_t total, int64_t flushed, int64_t overflow) {
    LayerProbe layer;
    layer.layer = name;
    layer.hasParameters = hasParameters;
    layer.gradClasses.flushed = flushed;
    layer.gradClasses.overflow = overflow;
    layer.gradClasses.normal = total - flushed - overflow;
    return layer;
}

}  // namespace

class RunAccountingTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void countsStepsLossesAndScaleChanges() {
        RunAccounting a;
        RunSummary s;
        a.startEpoch();
        StepMetrics skipped = stepOf(2, NAN, 0.5);
        skipped.stepSkipped = true;
        skipped.scaleChange = ScaleChange::Backoff;
        StepMetrics grown = stepOf(3, 3.0, 0.5);
        grown.scaleChange = ScaleChange::Growth;
        a.countStep(stepOf(1, 1.0, 1.0), 32, 65536.0, s);
        a.countStep(skipped, 32, 32768.0, s);
        a.countStep(grown, 16, 65536.0, s);
        QCOMPARE(s.steps, int64_t{3});
        QCOMPARE(s.nonFiniteLosses, int64_t{1});
        QCOMPARE(s.skippedSteps, int64_t{1});
        QCOMPARE(s.scaleBackoffs, int64_t{1});
        QCOMPARE(s.scaleGrowths, int64_t{1});
        QCOMPARE_BITS(s.finalScale, 65536.0);
        QCOMPARE_BITS(a.epochTrainLoss(), 2.0);  // (1 + 3) / 2: the NaN does not count
        QCOMPARE_BITS(a.trainSeconds(), 2.0);

        // No epoch ended: the final loss is the recent steps' mean, no validation numbers.
        a.finish({}, s);
        QCOMPARE_BITS(s.finalTrainLoss, 2.0);
        QCOMPARE_BITS(s.samplesPerSecond, 80.0 / 2.0);
        QVERIFY(std::isnan(s.valLoss));
        QVERIFY(std::isnan(s.valAccuracy));
    }

    void anEndedEpochGivesTheFinalLossAndValidation() {
        RunAccounting a;
        RunSummary s;
        a.startEpoch();
        a.countStep(stepOf(1, 4.0, 1.0), 8, 1.0, s);
        EpochMetrics e;
        e.epoch = 1;
        e.trainLoss = a.epochTrainLoss();
        e.valLoss = 0.5;
        e.valAccuracy = 0.9;
        a.endEpoch(e, s);
        a.startEpoch();
        QVERIFY(std::isnan(a.epochTrainLoss()));  // a new epoch starts from nothing
        a.countStep(stepOf(2, 1.0, 1.0), 8, 1.0, s);
        a.finish({}, s);
        QCOMPARE(s.epochs, int64_t{1});
        QCOMPARE_BITS(s.finalTrainLoss, 4.0);  // the last ended epoch's, not the stray step's
        QCOMPARE_BITS(s.valLoss, 0.5);
        QCOMPARE_BITS(s.valAccuracy, 0.9);
    }

    void theRecentLossesAreTheLastFifty() {
        RunAccounting a;
        RunSummary s;
        for (int64_t i = 1; i <= 60; ++i) a.countStep(stepOf(i, static_cast<double>(i), 0.1), 1, 1.0, s);
        a.finish({}, s);
        QCOMPARE_BITS(s.finalTrainLoss, (11.0 + 60.0) / 2.0);  // the mean of 11..60
    }

    void underflowMeansPerLayerInForwardOrder() {
        RunAccounting a;
        ProbeSnapshot first, second;
        first.layers = {probedLayer("relu", false, 100, 50, 0), probedLayer("fc2", true, 100, 10, 0),
                        probedLayer("fc1", true, 100, 0, 4)};
        second.layers = {probedLayer("fc2", true, 100, 30, 0), probedLayer("fc1", true, 100, 0, 0)};
        a.countProbeStep(first);
        a.countProbeStep(second);
        RunSummary s;
        a.finish({"fc1", "relu", "fc2"}, s);
        QCOMPARE(s.underflow.size(), std::size_t{2});  // relu has no parameters
        QCOMPARE(QString::fromStdString(s.underflow[0].layer), QStringLiteral("fc1"));
        QCOMPARE_BITS(s.underflow[0].overflowFraction, 0.02);
        QCOMPARE(s.underflow[0].probeSteps, int64_t{2});
        QCOMPARE(QString::fromStdString(s.underflow[1].layer), QStringLiteral("fc2"));
        QCOMPARE_BITS(s.underflow[1].flushedFraction, 0.2);
    }

    void watchpointsFireInOrderAndOnlyWhenSet() {
        ProbeConfig probes;
        StepMetrics m = stepOf(7, 1.0, 0.1);
        m.scaleAfter = 0.5;
        NonFiniteEvent first;
        first.layer = "fc2";
        first.phase = "backward";
        first.tensor = "gradient";
        ProbeSnapshot snapshot;
        snapshot.layers = {probedLayer("fc1", true, 100, 0, 30), probedLayer("fc2", true, 100, 0, 5),
                           probedLayer("relu", false, 100, 0, 90)};
        QVERIFY(watchpointsFired(probes, m, true, &first, &snapshot).empty());  // none set

        probes.pause_on_nonfinite = true;
        probes.pause_overflow_above = 0.1;
        probes.pause_scale_below = 1.0;
        const auto reasons = watchpointsFired(probes, m, true, &first, &snapshot);
        QCOMPARE(reasons.size(), std::size_t{3});
        QCOMPARE(QString::fromStdString(reasons[0]),
                 QStringLiteral("first non-finite value at fc2 (backward, gradient)"));
        QVERIFY(QString::fromStdString(reasons[1]).startsWith(QStringLiteral("fc1: 0.3")));
        QVERIFY(QString::fromStdString(reasons[2]).startsWith(QStringLiteral("loss scale 0.5")));

        // No scaler: the scale floor means nothing; no probe step: no overflow check.
        QCOMPARE(watchpointsFired(probes, m, false, nullptr, nullptr).size(), std::size_t{0});
    }
};

QTEST_GUILESS_MAIN(RunAccountingTest)
#include "test_run_accounting.moc"
