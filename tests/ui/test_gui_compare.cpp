// Comparing runs: the Compare dock overlays recorded runs with a legend by name and
// mode; the Lock-step A/B dock plots per-layer gradient cosine and the loss difference
// from a run trained with a lock-step partner.
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>

#include "MainWindow.h"
#include "RunSupport.h"
#include "TestSupport.h"
#include "probes/ComparisonRecords.h"
#include "views/CompareView.h"
#include "views/LockstepPlot.h"
#include "plots/RunOverlayPlot.h"

using namespace ampscope;
using ampscope::ui::CompareView;
using ampscope::ui::LockstepPlot;
using ampscope::ui::MainWindow;
using ampscope::ui::MainWindowOptions;
using ampscope::ui::RunOverlayPlot;

namespace {

RunConfig tinyRun(const std::string& mode) {
    RunConfig c = test::spiralsMlpConfig(256, {16, 16}, 32);  // 6 steps per epoch
    c.precision.mode = mode;
    c.probes.every = 2;
    return c;
}

}  // namespace

class GuiCompareTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A run recorded under torch.distributed is a folder of rank-N runs: adding the
    // folder compares every rank, and the list says which rank went non-finite first.
    void aDistributedRunComparesItsRanksAndNamesTheFirstNonFinite() {
        QTemporaryDir tmp;
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("dist")));
        RunConfig late = tinyRun("fp32");
        late.faults = {{5, "nan_grad", "fc2", 1.0}};
        RunConfig early = tinyRun("fp32");
        early.faults = {{3, "nan_grad", "fc2", 1.0}};
        test::runAndRead(late, tmp, "dist/rank-0");
        test::runAndRead(early, tmp, "dist/rank-1");
        CompareView view;
        QString error;
        QVERIFY2(view.addRun(tmp.filePath("dist"), &error), qPrintable(error));
        QCOMPARE(view.runList()->count(), 2);
        QCOMPARE(view.runList()->item(0)->text(), QStringLiteral("rank-0 · non-finite at step 5"));
        QCOMPARE(view.runList()->item(1)->text(), QStringLiteral("rank-1 · first non-finite, step 3"));
        QCOMPARE(view.lossPlot()->runGraph(1)->name(), QStringLiteral("rank-1 (fp32) · non-finite at step 3"));
        QCOMPARE(view.firstNonFiniteRun(), 1);

        // Opening the folder in the window: the ranks in Compare, rank 1 in the views.
        MainWindowOptions options;
        options.persistSettings = false;
        options.runsRoot = tmp.filePath("runs");
        MainWindow window(options);
        QVERIFY2(window.openRunDirectory(tmp.filePath("dist"), &error), qPrintable(error));
        QCOMPARE(window.compareView()->runList()->count(), 2);
        QCOMPARE(window.runDirectory(), QDir::cleanPath(tmp.filePath("dist/rank-1")));
    }

    void overlaysRecordedRunsWithTheirModes() {
        QTemporaryDir tmp;
        const RunData fp32 = test::runAndRead(tinyRun("fp32"), tmp, "a-fp32");
        const RunData fp16 = test::runAndRead(tinyRun("fp16"), tmp, "b-fp16");
        CompareView view;
        view.resize(1200, 400);
        QString error;
        QVERIFY2(view.addRun(tmp.filePath("a-fp32"), &error), qPrintable(error));
        QVERIFY2(view.addRun(tmp.filePath("b-fp16"), &error), qPrintable(error));
        QVERIFY(!view.addRun(tmp.filePath("missing"), &error));
        QVERIFY2(error.contains("no such run directory"), qPrintable(error));
        QCOMPARE(view.runList()->count(), 2);

        auto* loss = view.lossPlot();
        QCOMPARE(loss->runCount(), 2);
        QCOMPARE(loss->runGraph(0)->name(), QString("a-fp32 (fp32)"));
        QCOMPARE(loss->runGraph(1)->name(), QString("b-fp16 (fp16)"));
        const auto steps = test::recordsOf(fp16, "step");
        QCOMPARE(loss->runGraph(1)->data()->size(), static_cast<int>(steps.size()));
        QCOMPARE(loss->runGraph(1)->data()->at(0)->value, steps[0]["loss"].get<double>());
        // log2 of the scale: 2^16 for the fp16 run's dynamic scaler, 0 for fp32.
        QCOMPARE(view.scalePlot()->runGraph(0)->data()->at(0)->value, 0.0);
        QCOMPARE(view.scalePlot()->runGraph(1)->data()->at(0)->value,
                 std::log2(steps[0]["scale_after"].get<double>()));
        // One point per probe step: steps 1, 2, 4, 6.
        QCOMPARE(view.underflowPlot()->runGraph(1)->data()->size(), 4);

        view.removeRun(0);
        QCOMPARE(view.lossPlot()->runCount(), 1);
        QCOMPARE(view.lossPlot()->runGraph(0)->name(), QString("b-fp16 (fp16)"));
    }

    // The Compare dock of a 1280x800 window: the empty state is one sentence, whole; with
    // runs listed, each plot's x tick labels stand apart.
    void readsInALaptopWindow() {
        QTemporaryDir tmp;
        QTemporaryDir runs;
        MainWindowOptions options;
        options.persistSettings = false;
        options.runsRoot = runs.path();
        MainWindow window(options);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        CompareView* view = window.compareView();
        view->parentWidget()->raise();
        for (QDockWidget* dock : window.docks())
            if (dock->widget() == view) dock->raise();
        QTRY_VERIFY(view->isVisible());
        QLabel* empty = view->emptyText();
        QVERIFY(empty->isVisible());
        // Word-wrapped into its own width and height: nothing cut.
        QVERIFY(empty->heightForWidth(empty->width()) <= empty->height());

        (void)test::runAndRead(tinyRun("fp32"), tmp, "a-fp32");
        (void)test::runAndRead(tinyRun("fp16"), tmp, "b-fp16");
        QString error;
        QVERIFY2(view->addRun(tmp.filePath("a-fp32"), &error), qPrintable(error));
        QVERIFY2(view->addRun(tmp.filePath("b-fp16"), &error, "fp16 run"), qPrintable(error));
        QVERIFY(!empty->isVisible());
        QCOMPARE(view->lossPlot()->runGraph(1)->name(), QString("fp16 run (fp16)"));
        for (RunOverlayPlot* plot : {view->lossPlot(), view->scalePlot(), view->underflowPlot()}) {
            QVERIFY(plot->isVisible());
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const QVector<double> ticks = plot->xAxis->tickVector();
            const QVector<QString> labels = plot->xAxis->tickVectorLabels();
            const QFontMetrics metrics(plot->xAxis->tickLabelFont());
            QVERIFY(ticks.size() >= 2);
            for (int i = 1; i < ticks.size(); ++i) {
                const double gap = plot->xAxis->coordToPixel(ticks[i]) - plot->xAxis->coordToPixel(ticks[i - 1]);
                const double needed =
                    0.5 * (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) + 6;
                QVERIFY2(gap > needed, qPrintable(plot->yAxis->label() + ": " + labels[i - 1] + " " + labels[i]));
            }
        }
        view->clearRuns();
        QVERIFY(empty->isVisible());
    }

    void lockstepPlotsCosineAndLossDifference() {
        QTemporaryDir tmp;
        RunConfig config = tinyRun("fp16");
        config.lockstep.mode = "fp32";
        const RunData run = test::runAndRead(config, tmp, "ab");
        MainWindowOptions options;
        options.persistSettings = false;
        options.runsRoot = tmp.path();
        MainWindow window(options);
        QString error;
        QVERIFY2(window.openRunDirectory(tmp.filePath("ab"), &error), qPrintable(error));
        LockstepPlot* plot = window.lockstepPlot();
        QCOMPARE(plot->partnerMode(), QString("fp32"));

        const auto records = test::recordsOf(run, "lockstep");
        QCOMPARE(static_cast<int>(records.size()), 6);
        QCOMPARE(plot->lossDiffGraph()->data()->size(), 6);
        QCOMPARE(plot->lossDiffGraph()->name(), QString("loss fp16 − fp32"));
        for (int i = 0; i < 6; ++i)
            QCOMPARE(plot->lossDiffGraph()->data()->at(i)->value,
                     records[static_cast<size_t>(i)]["loss_diff"].get<double>());
        // Per-layer cosines on the probe steps (1, 2, 4, 6).
        int withLayers = 0;
        double fc1Cosine = NAN;
        for (const auto& r : records) {
            const LockstepRecord parsed = lockstepRecordFromJson(r);
            if (parsed.layers.empty()) continue;
            if (withLayers++ == 0)
                for (const auto& l : parsed.layers)
                    if (l.layer == "fc1") fc1Cosine = l.cosine;
        }
        QCOMPARE(withLayers, 4);
        QCPGraph* fc1 = plot->cosineGraph("fc1");
        QVERIFY(fc1);
        QCOMPARE(fc1->data()->size(), 4);
        QCOMPARE(fc1->data()->at(0)->value, fc1Cosine);
        QVERIFY(fc1Cosine > 0.9 && fc1Cosine <= 1.0);
        QVERIFY(!plot->cosineGraph("act1"));  // no parameters, no cosine
        QVERIFY(plot->hoverText(1.0, QPoint()).contains("fc1 cosine (step 1)"));
    }

    void runWithoutPartnerSaysHow() {
        QTemporaryDir tmp;
        (void)test::runAndRead(tinyRun("fp32"), tmp, "solo");
        MainWindowOptions options;
        options.persistSettings = false;
        options.runsRoot = tmp.path();
        MainWindow window(options);
        QString error;
        QVERIFY2(window.openRunDirectory(tmp.filePath("solo"), &error), qPrintable(error));
        QVERIFY(window.lockstepPlot()->partnerMode().isEmpty());
        QCOMPARE(window.lockstepPlot()->lossDiffGraph()->data()->size(), 0);
    }
};

QTEST_MAIN(GuiCompareTest)
#include "test_gui_compare.moc"
