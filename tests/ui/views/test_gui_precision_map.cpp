// The Precision map dock: a hand-built precision_map record goes into a run of the run
// set as the window's feed hands records to it, and the dock reads the run's store; the
// plot draws its ops, the first op past the tolerance (10
// unit roundoffs of bf16: 10 * 2^-8 = 0.0390625) is named, a click on an op selects its
// module in the dock's module tree and overlays that op's log2|x| histograms (run against
// reference); a record that does not read is counted, not shown; a compared run's map of
// the same step is drawn over it; the window's Run menu has "Map this step against fp32",
// enabled only on a paused run, and the dock is among the window's docks.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest/QtTest>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "window/DockLayout.h"
#include "window/MainWindow.h"
#include "window/WindowActions.h"
#include "plots/ExponentOverlayPlot.h"
#include "plots/PrecisionMapPlot.h"
#include "probes/PrecisionMapRecord.h"
#include "report/PrecisionMapReport.h"
#include "report/ReportRun.h"
#include "runset/RunModel.h"
#include "runset/RunSet.h"
#include "views/PrecisionMapView.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

PrecisionMapOp op(const std::string& name, const std::string& module, const std::string& phase, double rel,
                  double added) {
    PrecisionMapOp o;
    o.op = name;
    o.module = module;
    o.phase = phase;
    o.elements = 4;
    o.relError = rel;
    o.addedError = added;
    o.run.counts[3 - kMinExponent] = 4;  // four values in [2^3, 2^4)
    o.reference.counts[2 - kMinExponent] = 4;
    return o;
}

// fc1's matmul rounds once (2^-9, within the tolerance), its ReLU adds nothing, fc2's
// matmul is past the tolerance (0.05 > 0.0390625), one backward op.
PrecisionMapRecord mapOfStep(int64_t step) {
    PrecisionMapRecord map;
    map.step = step;
    map.mode = "bf16";
    map.reference = "fp32";
    map.formatForward = map.formatBackward = "bf16";
    map.bitsForward = map.bitsBackward = 8;
    map.ops = {op("aten::addmm", "fc1", "forward", 1.0 / 512, 1.0 / 512), op("aten::relu", "fc1", "forward", 1.0 / 512, 0.0),
               op("aten::addmm", "fc2", "forward", 0.05, 0.048), op("aten::mm", "fc2", "backward", 0.01, 0.01)};
    map.modules = {{"fc1", "forward", 0, 2, 0.0, 1.0 / 512}, {"fc2", "forward", 2, 1, 1.0 / 512, 0.05},
                   {"fc2", "backward", 3, 1, 0.0, 0.01}};
    return map;
}

}  // namespace

class PrecisionMapDockTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void drawsTheMapAndAClickSelectsTheModule() {
        RunSet set;
        PrecisionMapView view(&set);
        view.resize(900, 600);
        view.show();
        RunModel* run = set.addRun(RunContext{});
        QCOMPARE(view.plot()->opCount(), 0);
        run->takeRecord(toJson(mapOfStep(5)));
        run->takeRecord(toJson(mapOfStep(9)));
        run->endOfBatch();
        // The newest map is shown; both steps can be chosen.
        QCOMPARE(view.shownStep(), int64_t{9});
        QCOMPARE(view.stepChooser()->count(), 2);
        QCOMPARE(view.plot()->opCount(), 4);
        const QString summary = view.summaryLabel()->text();
        QVERIFY2(summary.contains("First past 10 u: #2 aten::addmm in fc2 (forward)"), qPrintable(summary));
        // Modules in the tree with their error entering and leaving.
        QCOMPARE(view.moduleTree()->topLevelItemCount(), 2);

        QSignalSpy selected(&view, &PrecisionMapView::moduleSelected);
        QTest::qWait(0);
        QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.plot()->opPixel(2));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.front().front().toString(), QStringLiteral("fc2"));
        QCOMPARE(view.selectedOp(), 2);
        QVERIFY(view.moduleTree()->currentItem());
        QCOMPARE(view.moduleTree()->currentItem()->text(0), QStringLiteral("fc2"));
        const QString title = view.histograms()->titleText();
        QVERIFY2(title.contains("addmm") && title.contains("fc2"), qPrintable(title));

        // An earlier step chosen: its map is shown.
        view.stepChooser()->setCurrentIndex(0);
        QCOMPARE(view.shownStep(), int64_t{5});
    }

    void aRecordThatDoesNotReadIsCounted() {
        RunSet set;
        PrecisionMapView view(&set);
        RunModel* run = set.addRun(RunContext{});
        auto record = toJson(mapOfStep(3));
        record["ops"] = "not a list";
        run->takeRecord(record);
        run->endOfBatch();
        QCOMPARE(view.malformedRecords(), int64_t{1});
        QCOMPARE(view.shownStep(), int64_t{-1});
        QCOMPARE(view.plot()->opCount(), 0);
    }

    // A second run compared with the focused one: its map of the shown step is a second
    // series; the focused run's map stays the one the chooser and the tree show.
    void aComparedRunsMapIsDrawnOver() {
        RunSet set;
        PrecisionMapView view(&set);
        RunContext a, b;
        a.title = QStringLiteral("bf16 run");
        b.title = QStringLiteral("fp16 run");
        RunModel* runA = set.addRun(a);
        RunModel* runB = set.addRun(b, RunSet::AddOptions{false, true});
        set.focus(runA->id());
        set.setCompared(runA->id(), true);
        runA->takeRecord(toJson(mapOfStep(7)));
        runA->endOfBatch();
        QCOMPARE(view.overlayCount(), 0);
        PrecisionMapRecord other = mapOfStep(7);
        other.mode = "fp16";
        runB->takeRecord(toJson(other));
        runB->endOfBatch();
        QCOMPARE(view.shownStep(), int64_t{7});
        QCOMPARE(view.overlayCount(), 1);
        QCOMPARE(view.plot()->seriesCount(), 2);
        // Not compared: not drawn.
        set.setCompared(runB->id(), false);
        QCOMPARE(view.overlayCount(), 0);
        QCOMPARE(view.plot()->seriesCount(), 1);
    }

    // The report's section: the ops by the error they add (fc2's matmul 0.048 first, then
    // the backward 0.01, fc1's 2^-9; the ReLU's 0 last), the first past the tolerance.
    void reportSectionRanksTheOps() {
        ReportRun run;
        QVERIFY(report_text::precisionMapHtml(run).contains("No precision map was taken"));
        run.precisionMap = mapOfStep(4);
        const QString html = report_text::precisionMapHtml(run);
        QVERIFY(html.contains("Where precision is lost"));
        QVERIFY2(html.contains("First op past 10 u:</b> #2 aten::addmm in fc2 (forward)"), qPrintable(html));
        const qsizetype ranked = html.indexOf("The ten ops that add the most error");
        const qsizetype fc2 = html.indexOf("#2 aten::addmm", ranked), backward = html.indexOf("#3 aten::mm", ranked),
                        fc1 = html.indexOf("#0 aten::addmm", ranked), relu = html.indexOf("#1 aten::relu", ranked);
        QVERIFY2(fc2 >= 0 && fc2 < backward && backward < fc1 && fc1 < relu, qPrintable(html));
        // 0.048 in units of 2^-8: 12.3.
        QVERIFY2(html.contains("<td>12.3</td>"), qPrintable(html));
        QVERIFY(ranked >= 0);
    }

    void theRunMenuMapsOnlyAPausedRun() {
        MainWindow window(MainWindowOptions{false, QString()});
        QAction* map = window.actions()->mapStepAction();
        QVERIFY(map);
        QCOMPARE(map->text().remove('&'), QStringLiteral("Map this step against fp32"));
        QCOMPARE(map->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F10));
        // No run: nothing to map.
        QVERIFY(!map->isEnabled());
        // Paused: the next step can be mapped; running or stopping: not.
        window.actions()->update(true, false, true, true);
        QVERIFY(map->isEnabled());
        window.actions()->update(true, false, true, false);
        QVERIFY(!map->isEnabled());
        window.actions()->update(true, true, true, true);
        QVERIFY(!map->isEnabled());
        QVERIFY(window.views().precisionMap);
        // The dock holds the view (in a scroll area: its table and form outgrow a short dock).
        QVERIFY(window.dockLayout()->dock(QStringLiteral("precisionMap"))->isAncestorOf(window.views().precisionMap));
    }
};

QTEST_MAIN(PrecisionMapDockTest)
#include "test_gui_precision_map.moc"
