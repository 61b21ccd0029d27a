// A report of several runs draws each run's own values: the pages of the runs together
// (ReportSetViews: the window's Loss and Loss scale plots over one run set, and the
// report's own overlays of the flushed fraction and the validation accuracy) and each
// run's own section (ReportRunViews), checked point by point on the plot objects the
// report rasterizes (ReportWriter hands these very objects to its sink), for three runs
// written by hand (KnownRuns.h) whose every quantity differs.
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>

#include "ExactCompare.h"
#include "KnownRuns.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "report/ReportRun.h"
#include "report/ReportRunViews.h"
#include "report/ReportSetViews.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"

using namespace ampscope;
using namespace ampscope::ui;
using namespace ampscope::test::known_runs;

namespace {

// The EMA is summed in another order here (closed form) than by the view (recursively).
constexpr double kEmaTolerance = 1e-13;
constexpr double kSmoothing = 0.95;  // the Loss plot's EMA factor, as its legend says

#define QVERIFY_POINTS(plot, name, expected, relative)                                                  \
    do {                                                                                                \
        const QString difference = pointDifference(graphNamed(plot, name), expected, relative);        \
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("%1 / %2: %3")                        \
                                                      .arg((plot)->yAxis->label(), name, difference)));  \
    } while (false)

#define QVERIFY_GRAPH_POINTS(graph, expected, relative)                                       \
    do {                                                                                      \
        const QString difference = pointDifference(graph, expected, relative);               \
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral(#graph ": ") + difference)); \
    } while (false)

}  // namespace

class GuiReportOverlayValuesTest : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QStringList directories_;

    // The runs as writeReport reads them: once, into one set, with the views built first.
    static std::vector<LoadedRun> load(RunSet& set, const QStringList& directories) {
        std::vector<LoadedRun> loaded = loadRunDirectories(set, directories, {false, false});
        for (std::size_t k = 0; k < loaded.size(); ++k) {
            if (!loaded[k].run) qFatal("%s", qPrintable(loaded[k].error));
            if (loaded[k].run->name() != QStringLiteral("run-%1").arg(k)) qFatal("run %zu misnamed", k);
        }
        return loaded;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        for (int k = 0; k < 3; ++k) {
            directories_ << tmp_.filePath(QStringLiteral("run-%1").arg(k));
            writeKnownRun(directories_.back(), k, true);
        }
    }

    // "The runs together": every line of every run, by its legend name, holds that run's
    // values; the first run listed first.
    void theRunsTogetherPagesDrawEachRunsOwnValues() {
        RunSet set;
        ReportSetViews views(set);
        std::vector<RunId> ids;
        for (const LoadedRun& loaded : load(set, directories_)) ids.push_back(loaded.run->id());
        views.show(ids);
        LossPlot* lossPlot = views.loss();
        ScalePlot* scalePlot = views.scale();
        QCustomPlot* flushedPlot = views.flushed();
        QCustomPlot* accuracyPlot = views.accuracy();
        QCOMPARE(lossPlot->shownRunCount(), 3);
        QCOMPARE(lossPlot->runGraph(0)->name(), QStringLiteral("run-0"));
        QVERIFY(views.anyFlushed() && views.hasAccuracy());  // both overlays are printed
        QCOMPARE(flushedPlot->graphCount(), 3);
        QCOMPARE(accuracyPlot->graphCount(), 3);
        for (int k = 0; k < 3; ++k) {
            const QString n = QStringLiteral("run-%1").arg(k);
            const auto line = [&n](const char* what) { return n + QStringLiteral(": ") + QLatin1String(what); };
            QVERIFY_POINTS(lossPlot, line("train loss"), perStep([k](int s) { return loss(k, s); }), 0.0);
            QVERIFY_POINTS(lossPlot, n, smoothedLoss(k, kSmoothing), kEmaTolerance);
            QCOMPARE(lossPlot->runGraph(k), graphNamed(lossPlot, n));
            QVERIFY_POINTS(lossPlot, line("val loss"), perEpoch([k](int e) { return valLoss(k, e); }), 0.0);
            QVERIFY_POINTS(lossPlot, line("val accuracy (%)"),
                           perEpoch([k](int e) { return 100.0 * valAccuracy(k, e); }), 0.0);
            QVERIFY_POINTS(scalePlot, n, perStep([k](int s) { return std::log2(scale(k, s)); }), 0.0);
            QCOMPARE(scalePlot->runGraph(k), graphNamed(scalePlot, n));

            // The report's own overlays: all layers' flushed elements per probe step, in %,
            // and the accuracy per epoch, one line per run by its name, in its colour.
            QVERIFY_POINTS(flushedPlot, n, flushedPercent(k), 1e-14);
            QVERIFY_POINTS(accuracyPlot, n, perEpoch([k](int e) { return 100.0 * valAccuracy(k, e); }), 0.0);
            QCOMPARE(graphNamed(flushedPlot, n)->pen().color(), graphNamed(lossPlot, n)->pen().color());
            QCOMPARE(graphNamed(accuracyPlot, n)->pen().color(), graphNamed(lossPlot, n)->pen().color());
        }
    }

    // Each run's own section of a comparison report: its Loss and Loss scale plots hold
    // that run's values (one run shown: the legend names the lines, not the run).
    void eachRunsSectionDrawsThatRun() {
        RunSet set;
        ReportRunViews views(set);
        const std::vector<LoadedRun> loaded = load(set, directories_);
        for (int k = 0; k < 3; ++k) {
            const LoadedRun& run = loaded[static_cast<std::size_t>(k)];
            views.show(run.run->id(), reportRunOf(*run.run, run));
            const LossPlot* lossPlot = views.loss();
            QCOMPARE(lossPlot->shownRunCount(), 1);
            QVERIFY_GRAPH_POINTS(lossPlot->rawLossGraph(), perStep([k](int s) { return loss(k, s); }), 0.0);
            QVERIFY_GRAPH_POINTS(lossPlot->smoothedLossGraph(), smoothedLoss(k, kSmoothing), kEmaTolerance);
            QVERIFY_GRAPH_POINTS(lossPlot->validationLossGraph(), perEpoch([k](int e) { return valLoss(k, e); }), 0.0);
            QVERIFY_GRAPH_POINTS(lossPlot->validationAccuracyGraph(),
                                 perEpoch([k](int e) { return 100.0 * valAccuracy(k, e); }), 0.0);
            QVERIFY_GRAPH_POINTS(views.scale()->scaleGraph(), perStep([k](int s) { return std::log2(scale(k, s)); }),
                                 0.0);
        }
    }
};

QTEST_MAIN(GuiReportOverlayValuesTest)
#include "test_gui_report_overlay_values.moc"
