// Comparing runs in the window: runs opened into the run set are overlaid in the per-step
// docks by run name and colour; a recorded job's folder opens as a set of its ranks with
// the rank that went non-finite first focused; removing a run takes it out of every
// view; the docks read at 1280x800 with two runs. The Lock-step A/B dock plots per-layer
// gradient cosine and the loss difference of a run trained with a lock-step partner.
#include <QDir>
#include <QCheckBox>
#include <QDockWidget>
#include <QListWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>

#include "ExactCompare.h"
#include "window/DockLayout.h"
#include "window/MainWindow.h"
#include "OneRunSet.h"
#include "RunSupport.h"
#include "TestSupport.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "views/ThroughputPlot.h"
#include "probes/ComparisonRecords.h"
#include "runset/RunSet.h"
#include "views/LockstepPlot.h"
#include "views/LossView.h"
#include "views/RunListView.h"
#include "views/UnderflowView.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

RunConfig tinyRun(const std::string& mode) {
    RunConfig c = test::spiralsMlpConfig(256, {16, 16}, 32);  // 6 steps per epoch
    c.precision.mode = mode;
    c.probes.every = 2;
    return c;
}

MainWindowOptions windowOptions(const QString& runs) {
    MainWindowOptions options;
    options.persistSettings = false;
    options.runsRoot = runs;
    return options;
}

}  // namespace

class GuiCompareTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The Loss dock's axis: linear while the shown curves span under three decades; a run
    // whose loss stalls at 1e-7 beside one at 1e-2 turns it logarithmic by itself (the
    // switch checked, "(auto)"); the switch then decides, steps arriving or not, until
    // the shown runs change.
    void theLossAxisTurnsLogarithmicByItselfAndTheSwitchDecides() {
        const auto falling = [](double from, double to, int64_t first, int count) {
            std::vector<StepMetrics> steps;
            for (int k = 0; k < count; ++k) {
                StepMetrics m;
                m.step = first + k;
                m.epoch = 1;
                m.loss = from * std::pow(to / from, static_cast<double>(k) / (count - 1));
                steps.push_back(m);
            }
            return steps;
        };
        OneRunSet feed;
        LossView view(&feed.set);
        LossPlot* plot = view.plot();
        QCheckBox* logSwitch = view.logarithmicSwitch();
        RunContext context;
        context.title = QStringLiteral("dynamic-scaler");
        feed.addRun(context);
        feed.appendSteps(falling(2.0, 0.02, 1, 20));
        feed.endOfBatch();
        QVERIFY(!plot->isLogarithmic());
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
        QVERIFY(!logSwitch->isChecked());

        context.title = QStringLiteral("no-scaler");
        feed.addRun(context);
        feed.appendSteps(falling(2.0, 1.2e-7, 1, 20));
        feed.endOfBatch();
        QCOMPARE(plot->shownRunCount(), 2);
        QVERIFY(plot->isLogarithmic() && plot->isAutoLogarithmic());
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(plot->yAxis->range().lower <= 1.2e-7 && plot->yAxis->range().upper >= 2.0);
        QVERIFY(logSwitch->isChecked());
        QVERIFY2(logSwitch->text().contains("auto"), qPrintable(logSwitch->text()));

        logSwitch->click();
        QVERIFY(!plot->isLogarithmic() && !plot->isAutoLogarithmic());
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
        QVERIFY(!logSwitch->isChecked());
        QVERIFY2(!logSwitch->text().contains("auto"), qPrintable(logSwitch->text()));
        feed.appendSteps(falling(1e-7, 1e-8, 21, 5));
        feed.endOfBatch();
        QVERIFY(!plot->isLogarithmic());

        // Another run shown: the plot chooses again.
        context.title = QStringLiteral("third");
        feed.addRun(context);
        feed.appendSteps(falling(1.0, 0.5, 1, 5));
        feed.endOfBatch();
        QVERIFY(plot->isLogarithmic() && plot->isAutoLogarithmic());
        QVERIFY(logSwitch->isChecked());
    }

    // A run recorded under torch.distributed is a folder of rank-N runs: opening the folder
    // puts every rank in the set, compared, and focuses the rank that went non-finite first.
    void aDistributedRunOpensAsItsRanksWithTheFirstNonFiniteFocused() {
        QTemporaryDir tmp;
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("dist")));
        RunConfig late = tinyRun("fp32");
        late.faults = {{5, "nan_grad", "fc2", 1.0}};
        RunConfig early = tinyRun("fp32");
        early.faults = {{3, "nan_grad", "fc2", 1.0}};
        test::runAndRead(late, tmp, "dist/rank-0");
        test::runAndRead(early, tmp, "dist/rank-1");
        MainWindow window(windowOptions(tmp.filePath("runs")));
        QString error;
        QVERIFY2(window.openRun(tmp.filePath("dist"), &error), qPrintable(error));
        RunSet* set = window.runSet();
        QCOMPARE(set->size(), 2);
        QCOMPARE(set->runAt(0)->name(), QString("rank-0"));
        QCOMPARE(set->runAt(0)->firstNonFiniteStep(), int64_t{5});
        QCOMPARE(set->runAt(1)->firstNonFiniteStep(), int64_t{3});
        QCOMPARE(set->focused()->name(), QString("rank-1"));
        QCOMPARE(window.runDirectory(), QDir::cleanPath(tmp.filePath("dist/rank-1")));
        QVERIFY(set->runAt(0)->isCompared() && set->runAt(1)->isCompared());
        // The run list marks each rank's first non-finite step; rank 1 is the bold one.
        QListWidget* rows = window.views().runs->list();
        QCOMPARE(rows->count(), 2);
        QVERIFY2(rows->item(0)->text().contains("non-finite at step 5"), qPrintable(rows->item(0)->text()));
        QVERIFY(rows->item(1)->text().contains("non-finite at step 3"));
        QVERIFY(rows->item(1)->font().bold() && !rows->item(0)->font().bold());
        // Both ranks in the loss plot, the focused one first, each in its run's colour.
        LossPlot* loss = window.views().loss;
        QCOMPARE(loss->shownRunCount(), 2);
        QCOMPARE(loss->runGraph(0)->name(), QString("rank-1"));
        QCOMPARE(loss->runGraph(0)->pen().color(), set->runAt(1)->colour());
        QCOMPARE(loss->runGraph(1)->pen().color(), set->runAt(0)->colour());
        QVERIFY(set->runAt(0)->colour() != set->runAt(1)->colour());
    }

    void overlaysOpenedRunsInEveryPerStepDock() {
        QTemporaryDir tmp;
        const RunData fp32 = test::runAndRead(tinyRun("fp32"), tmp, "a-fp32");
        const RunData fp16 = test::runAndRead(tinyRun("fp16"), tmp, "b-fp16");
        MainWindow window(windowOptions(tmp.filePath("runs")));
        QString error;
        QVERIFY2(window.openRun(tmp.filePath("a-fp32"), &error), qPrintable(error));
        QVERIFY2(window.openRun(tmp.filePath("b-fp16"), &error), qPrintable(error));
        QVERIFY(!window.openRun(tmp.filePath("missing"), &error));
        QVERIFY2(error.contains("no such run directory"), qPrintable(error));
        RunSet* set = window.runSet();
        QCOMPARE(set->size(), 2);
        QCOMPARE(set->focused()->name(), QString("b-fp16"));  // the last one opened

        LossPlot* loss = window.views().loss;
        QCOMPARE(loss->shownRunCount(), 2);
        QCOMPARE(loss->runGraph(0)->name(), QString("b-fp16"));
        QCOMPARE(loss->runGraph(1)->name(), QString("a-fp32"));
        // The EMA of the first loss is the first loss itself (debiased).
        const auto steps = test::recordsOf(fp16, "step");
        QCOMPARE(loss->runGraph(0)->data()->size(), static_cast<int>(steps.size()));
        QCOMPARE_BITS(loss->runGraph(0)->data()->at(0)->value, steps[0]["loss"].get<double>());
        // log2 of the scale: 2^16 for the fp16 run's dynamic scaler, 0 for fp32.
        ScalePlot* scale = window.views().scale;
        QCOMPARE_BITS(scale->runGraph(0)->data()->at(0)->value, std::log2(steps[0]["scale"].get<double>()));
        QCOMPARE_BITS(scale->runGraph(1)->data()->at(0)->value, 0.0);
        QCOMPARE(scale->runGraph(0)->name(), QString("b-fp16"));
        QVERIFY(window.views().throughput->legend->itemCount() >= 2);
        // Underflow maps side by side, one per run.
        QCOMPARE(window.views().underflow->paneCount(), 2);

        // Unchecking a run takes it out of the overlays; removing it, out of the set.
        set->setCompared(set->runAt(0)->id(), false);
        QCOMPARE(loss->shownRunCount(), 1);
        QCOMPARE(window.views().underflow->paneCount(), 1);
        set->setCompared(set->runAt(0)->id(), true);
        QCOMPARE(loss->shownRunCount(), 2);
        set->removeRun(set->focusedId());
        QCOMPARE(set->size(), 1);
        QCOMPARE(loss->shownRunCount(), 1);
        QCOMPARE(set->focused()->name(), QString("a-fp32"));
        // One run left: the legend says what the lines are, not whose.
        QCOMPARE(loss->runGraph(0)->name(), QString("train loss, EMA 0.95"));
        QCOMPARE(loss->runGraph(0)->pen().color(), set->focused()->colour());
        QCOMPARE(window.views().runs->list()->count(), 1);
    }

    // Two runs in a 1280x800 window: each per-step dock's x tick labels stand apart and
    // the legend names both runs.
    void twoRunsReadInALaptopWindow() {
        QTemporaryDir tmp;
        (void)test::runAndRead(tinyRun("fp32"), tmp, "a-fp32");
        (void)test::runAndRead(tinyRun("fp16"), tmp, "b-fp16");
        MainWindow window(windowOptions(tmp.filePath("runs")));
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString error;
        QVERIFY2(window.openRun(tmp.filePath("a-fp32"), &error), qPrintable(error));
        QVERIFY2(window.openRun(tmp.filePath("b-fp16"), &error), qPrintable(error));
        const std::vector<TimeSeriesPlot*> plots{window.views().loss, window.views().scale, window.views().throughput};
        for (TimeSeriesPlot* plot : plots) {
            QTRY_VERIFY(plot->isVisible());
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
            QStringList names;
            for (int i = 0; i < plot->legend->itemCount(); ++i)
                if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
                    names << item->plottable()->name();
            QVERIFY2(names.join(' ').contains("a-fp32") && names.join(' ').contains("b-fp16"),
                     qPrintable(names.join(", ")));
        }
    }

    void lockstepPlotsCosineAndLossDifference() {
        QTemporaryDir tmp;
        RunConfig config = tinyRun("fp16");
        config.lockstep.mode = "fp32";
        const RunData run = test::runAndRead(config, tmp, "ab");
        MainWindow window(windowOptions(tmp.path()));
        QString error;
        QVERIFY2(window.openRun(tmp.filePath("ab"), &error), qPrintable(error));
        LockstepPlot* plot = window.views().lockstep;
        QCOMPARE(plot->partnerMode(), QString("fp32"));

        const auto records = test::recordsOf(run, "lockstep");
        QCOMPARE(static_cast<int>(records.size()), 6);
        QCOMPARE(plot->lossDiffGraph()->data()->size(), 6);
        QCOMPARE(plot->lossDiffGraph()->name(), QString("loss fp16 − fp32"));
        for (int i = 0; i < 6; ++i)
            QCOMPARE_BITS(plot->lossDiffGraph()->data()->at(i)->value, records[static_cast<size_t>(i)]["loss_diff"].get<double>());
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
        QCOMPARE_BITS(fc1->data()->at(0)->value, fc1Cosine);
        QVERIFY(fc1Cosine > 0.9 && fc1Cosine <= 1.0);
        QVERIFY(!plot->cosineGraph("act1"));  // no parameters, no cosine
        QVERIFY(plot->hoverText(1.0, QPoint()).contains("fc1 cosine (step 1)"));
    }

    void runWithoutPartnerSaysHow() {
        QTemporaryDir tmp;
        (void)test::runAndRead(tinyRun("fp32"), tmp, "solo");
        MainWindow window(windowOptions(tmp.path()));
        QString error;
        QVERIFY2(window.openRun(tmp.filePath("solo"), &error), qPrintable(error));
        QVERIFY(window.views().lockstep->partnerMode().isEmpty());
        QCOMPARE(window.views().lockstep->lossDiffGraph()->data()->size(), 0);
    }
};

QTEST_MAIN(GuiCompareTest)
#include "test_gui_compare.moc"
