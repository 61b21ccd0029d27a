// Compared runs in the window are drawn with their own values, not only under their own
// names and colours: three runs written by hand (KnownRuns.h), every per-step quantity
// different between them, opened into the run set; each overlay of the Loss, Loss scale,
// Throughput, Memory and Updates docks holds, point by point, the values of the run its
// legend names (few points: no decimation, so the graph holds every step), whichever run
// is focused and after one is unchecked.
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>

#include "ExactCompare.h"
#include "KnownRuns.h"
#include "window/MainWindow.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "views/ThroughputPlot.h"
#include "runset/RunSet.h"
#include "views/MemoryPlot.h"
#include "views/UpdatesPlot.h"
#include "views/UpdatesView.h"

using namespace ampscope;
using namespace ampscope::ui;
using namespace ampscope::test::known_runs;

namespace {

// The EMA is summed in another order here (closed form) than by the view (recursively):
// the two agree to a few ulps, not bit for bit.
constexpr double kEmaTolerance = 1e-13;
// TensorBoard's smoothing, as the Loss dock's legend says ("train loss, EMA 0.95").
constexpr double kSmoothing = 0.95;

// `graph` (of `plot`, named `name`) holds `expected` within `relative`.
#define QVERIFY_POINTS(plot, name, expected, relative)                                                  \
    do {                                                                                                \
        const QString difference = pointDifference(graphNamed(plot, name), expected, relative);        \
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("%1 / %2: %3")                        \
                                                      .arg((plot)->objectName(), name, difference)));  \
    } while (false)

// The run's index k in KnownRuns: its directory is named run-k.
int indexOf(const RunModel& run) {
    return run.name().mid(4).toInt();
}

}  // namespace

class GuiCompareValuesTest : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

    // live/run-k: no summary.json, so the window follows it; ended/run-k: complete.
    QString runDirectory(const char* folder, int k) const {
        return tmp_.filePath(QStringLiteral("%1/run-%2").arg(QLatin1String(folder)).arg(k));
    }
    MainWindowOptions windowOptions() const {
        MainWindowOptions options;
        options.persistSettings = false;
        options.runsRoot = tmp_.filePath(QStringLiteral("runs"));
        return options;
    }

    // Every line each shown run has in the docks that overlay compared runs: by its name
    // in the legend, the run's own values, in the run's colour.
    void checkEveryShownRun(MainWindow& window) {
        RunSet* set = window.runSet();
        const std::vector<const RunModel*> shown = set->shownRuns();
        QVERIFY(shown.size() >= 2);
        LossPlot* lossPlot = window.views().loss;
        ScalePlot* scalePlot = window.views().scale;
        ThroughputPlot* throughputPlot = window.views().throughput;
        MemoryPlot* memoryPlot = window.views().memory;
        UpdatesPlot* updatesPlot = window.views().updates->plot();
        QCOMPARE(lossPlot->shownRunCount(), static_cast<int>(shown.size()));
        for (std::size_t i = 0; i < shown.size(); ++i) {
            const RunModel& run = *shown[i];
            const int k = indexOf(run);
            const QString n = run.name();
            const auto line = [&n](const char* what) { return n + QStringLiteral(": ") + QLatin1String(what); };

            // Loss: the raw loss (NaN where the run's loss was), its EMA (the line the legend
            // names by the run; also runGraph(i), in the shown order), validation per epoch.
            QVERIFY_POINTS(lossPlot, line("train loss"), perStep([k](int s) { return loss(k, s); }), 0.0);
            QVERIFY_POINTS(lossPlot, n, smoothedLoss(k, kSmoothing), kEmaTolerance);
            QCOMPARE(lossPlot->runGraph(static_cast<int>(i)), graphNamed(lossPlot, n));
            QCOMPARE(graphNamed(lossPlot, n)->pen().color(), run.colour());
            QVERIFY_POINTS(lossPlot, line("val loss"), perEpoch([k](int e) { return valLoss(k, e); }), 0.0);
            QVERIFY_POINTS(lossPlot, line("val accuracy (%)"),
                           perEpoch([k](int e) { return 100.0 * valAccuracy(k, e); }), 0.0);
            QCOMPARE(graphNamed(lossPlot, line("val loss"))->pen().color(), run.colour());

            // Loss scale: log2 of each step's scale, exact for powers of two.
            QVERIFY_POINTS(scalePlot, n, perStep([k](int s) { return std::log2(scale(k, s)); }), 0.0);
            QCOMPARE(scalePlot->runGraph(static_cast<int>(i)), graphNamed(scalePlot, n));
            QCOMPARE(graphNamed(scalePlot, n)->pen().color(), run.colour());

            // Throughput: samples per second (named by the run) and milliseconds per step.
            QVERIFY_POINTS(throughputPlot, n, perStep([k](int s) { return samplesPerSecond(k, s); }), 0.0);
            QVERIFY_POINTS(throughputPlot, line("step time (ms)"),
                           perStep([k](int s) { return 1000.0 * stepSeconds(k, s); }), 0.0);
            QCOMPARE(graphNamed(throughputPlot, n)->pen().color(), run.colour());

            // Memory, in MiB (the records give bytes, whole MiB here).
            const auto mib = [](int64_t m) { return static_cast<double>(m); };
            QVERIFY_POINTS(memoryPlot, line("process RSS"), perStep([&](int s) { return mib(rssMiB(k, s)); }), 0.0);
            QVERIFY_POINTS(memoryPlot, line("peak RSS"), perStep([&](int s) { return mib(peakRssMiB(k, s)); }), 0.0);
            QVERIFY_POINTS(memoryPlot, line("CUDA peak allocated"),
                           perStep([&](int s) { return mib(cudaPeakMiB(k, s)); }), 0.0);
            QCOMPARE(graphNamed(memoryPlot, line("process RSS"))->pen().color(), run.colour());

            // Updates: per layer the update ratio and the lost fraction on probe steps; the
            // gradient norm before and after clipping per step.
            for (int l = 0; l < 2; ++l) {
                updatesPlot->setMeasure(UpdatesPlot::Measure::UpdateRatio);
                QVERIFY_POINTS(updatesPlot, line(kLayers[l]), perProbeStep([=](int s) { return updateRatio(k, l, s); }),
                               0.0);
                QCOMPARE(updatesPlot->graphOf(static_cast<int>(i), QLatin1String(kLayers[l])),
                         graphNamed(updatesPlot, line(kLayers[l])));
                updatesPlot->setMeasure(UpdatesPlot::Measure::LostUpdates);
                QVERIFY_POINTS(updatesPlot, line(kLayers[l]), perProbeStep([=](int s) {
                                   return static_cast<double>(lostUpdates(k, l, s)) / static_cast<double>(kIntended);
                               }),
                               0.0);
                QCOMPARE(graphNamed(updatesPlot, line(kLayers[l]))->pen().color(), run.colour());
            }
            updatesPlot->setMeasure(UpdatesPlot::Measure::GradientNorm);
            QVERIFY_POINTS(updatesPlot, line("gradient norm"), perStep([k](int s) { return gradNorm(k, s); }), 0.0);
            QVERIFY_POINTS(updatesPlot, line("after clipping"), perStep([k](int s) { return gradNormClipped(k, s); }),
                           0.0);
        }
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        for (int k = 0; k < 3; ++k) {
            writeKnownRun(runDirectory("live", k), k, false);
            writeKnownRun(runDirectory("ended", k), k, true);
        }
    }

    // The values themselves tell the runs apart: at step 1 run k's loss is 1 + 0.5k, its
    // throughput 1007 + 1000k samples/s, its RSS 65 + 16k MiB.
    void theKnownRunsDifferEverywhere() {
        for (int s = 1; s <= kSteps; ++s)
            for (int a = 0; a < 3; ++a)
                for (int b = a + 1; b < 3; ++b) {
                    QVERIFY(samplesPerSecond(a, s) != samplesPerSecond(b, s));
                    QVERIFY(stepSeconds(a, s) != stepSeconds(b, s));
                    QVERIFY(rssMiB(a, s) != rssMiB(b, s) && peakRssMiB(a, s) != peakRssMiB(b, s));
                    QVERIFY(cudaPeakMiB(a, s) != cudaPeakMiB(b, s));
                    QVERIFY(gradNorm(a, s) != gradNorm(b, s) && gradNormClipped(a, s) != gradNormClipped(b, s));
                    QVERIFY(!(loss(a, s) == loss(b, s)));
                    QVERIFY(scale(a, s) != scale(b, s));
                }
    }

    void eachComparedRunIsDrawnWithItsOwnValues_data() {
        QTest::addColumn<QString>("folder");
        QTest::newRow("followed (no summary.json)") << QStringLiteral("live");
        QTest::newRow("ended") << QStringLiteral("ended");
    }
    void eachComparedRunIsDrawnWithItsOwnValues() {
        QFETCH(QString, folder);
        MainWindow window(windowOptions());
        QString error;
        for (int k = 0; k < 3; ++k)
            QVERIFY2(window.openRun(runDirectory(qPrintable(folder), k), &error), qPrintable(error));
        RunSet* set = window.runSet();
        QCOMPARE(set->size(), 3);
        QCOMPARE(set->focused()->name(), QStringLiteral("run-2"));  // the last one opened
        checkEveryShownRun(window);
        if (QTest::currentTestFailed()) return;

        // Another run focused: the graphs are made again, each still from its own run.
        set->focus(set->runAt(0)->id());
        QCOMPARE(set->shownRuns().front()->name(), QStringLiteral("run-0"));
        checkEveryShownRun(window);
        if (QTest::currentTestFailed()) return;

        // The middle run unchecked: the other two keep their own values.
        set->setCompared(set->runAt(1)->id(), false);
        QCOMPARE(window.views().loss->shownRunCount(), 2);
        QVERIFY(!graphNamed(window.views().loss, QStringLiteral("run-1")));
        checkEveryShownRun(window);
    }

    // The folder holding the three ended runs opened at once (a scenario's output folder):
    // the runs are read side by side, a batch of each in turn; each still gets its own
    // records. The first non-finite one (run 1) is focused.
    void runsReadTogetherFromOneFolderKeepTheirOwnValues() {
        MainWindow window(windowOptions());
        QString error;
        QVERIFY2(window.openRun(tmp_.filePath(QStringLiteral("ended")), &error), qPrintable(error));
        QCOMPARE(window.runSet()->focused()->name(), QStringLiteral("run-1"));
        RunSet* set = window.runSet();
        QCOMPARE(set->size(), 3);
        QCOMPARE(static_cast<int>(set->shownRuns().size()), 3);
        checkEveryShownRun(window);
    }
};

QTEST_MAIN(GuiCompareValuesTest)
#include "test_gui_compare_values.moc"
