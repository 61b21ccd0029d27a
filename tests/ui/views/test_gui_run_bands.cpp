// A job's ranks drawn as one band: 16 synthetic ranks (run directories job/rank-N, fed
// their steps directly) with three planted outliers: rank 11 whose loss is NaN at step 50
// (the first non-finite), rank 5 whose steps take twice as long (a straggler), rank 9
// whose loss is 2 above the others from step 100 to 200 (departing). The Loss, Loss scale
// and Throughput plots draw one band (the Memory plot too, of the ranks' RSS records); its
// median and 10/90% quantiles at each step are recomputed here by this suite's own loop
// over the members' smoothed losses (and RSS); the three
// outliers and the focused rank are drawn and named, no one else; the legend counts the
// band and those lines. A job of 7 ranks (below the threshold) is drawn as before: a line
// and a legend entry per rank. Focusing another rank draws it alone on the band. A
// report's set pages draw the job the same way.
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ExactCompare.h"
#include "NumpyQuantile.h"
#include "report/ReportSetViews.h"
#include "runset/RunSet.h"
#include "probes/StepAuditRecords.h"
#include "views/LossPlot.h"
#include "views/MemoryPlot.h"
#include "views/ScalePlot.h"
#include "views/ThroughputPlot.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

constexpr int kSteps = 200;
constexpr int kNanRank = 11, kSlowRank = 5, kDepartingRank = 9;

StepMetrics stepOf(int rank, int step) {
    StepMetrics m;
    m.step = step;
    m.epoch = 1;
    // Ranks spread by 0.01 per rank around a falling loss, with rank-dependent wiggle.
    m.loss = 2.0 * std::exp(-step / 80.0) + 0.01 * rank + 0.003 * std::sin(0.7 * step + rank);
    if (rank == kNanRank && step == 50) m.loss = std::nan("");
    if (rank == kDepartingRank && step >= 100) m.loss += 2.0;
    m.stepSeconds = rank == kSlowRank ? 0.02 : 0.01 + 0.0001 * (rank % 3);
    m.samplesPerSecond = 32.0 / m.stepSeconds;
    m.scale = m.scaleAfter = 65536.0;
    return m;
}

void feed(RunSet& set, RunId id, int rank) {
    std::vector<StepMetrics> steps;
    for (int s = 1; s <= kSteps; ++s) steps.push_back(stepOf(rank, s));
    set.run(id)->appendSteps(steps);
    set.run(id)->endOfBatch();
}

// The job's ranks, each fed its steps as it joins (or, feedNow false, none yet).
std::vector<RunId> addJob(RunSet& set, const QString& job, int ranks, bool feedNow = true) {
    std::vector<RunId> ids;
    for (int r = 0; r < ranks; ++r) {
        RunContext context;
        context.title = QStringLiteral("rank-%1").arg(r);
        context.runDirectory = QStringLiteral("/tmp/%1/rank-%2").arg(job).arg(r);
        context.live = false;
        ids.push_back(set.addRun(context, {false, true})->id());
        if (feedNow) feed(set, ids.back(), r);
    }
    return ids;
}

double graphY(const QCPGraph* graph, double step) {
    const auto it = graph->data()->findBegin(step, false);
    return it != graph->data()->constEnd() && it->key == step ? it->value : std::nan("");
}

QStringList legendNames(const QCustomPlot& plot) {
    QStringList names;
    for (int i = 0; i < plot.legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
            names << item->plottable()->name();
    return names;
}

}  // namespace

class RunBandsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aJobIsOneBandWithItsOutliersNamed() {
        RunSet set;
        const std::vector<RunId> ids = addJob(set, QStringLiteral("job"), 16);
        set.focus(ids[0]);
        LossPlot loss(&set);
        ScalePlot scale(&set);
        ThroughputPlot throughput(&set);
        for (RunSetTimePlot* plot : std::initializer_list<RunSetTimePlot*>{&loss, &scale, &throughput}) {
            plot->refreshBands();
            QCOMPARE(plot->bands().size(), std::size_t{1});
            const RunBand& band = plot->bands().front();
            QCOMPARE(band.name, QStringLiteral("job"));
            QCOMPARE(band.members.size(), std::size_t{16});
            // Exactly the planted outliers, in the rule's order: non-finite, slow, departing.
            QCOMPARE(band.outliers.size(), std::size_t{3});
            QCOMPARE(band.outliers[0].run->id(), ids[kNanRank]);
            QVERIFY2(band.outliers[0].why.contains(QStringLiteral("first non-finite, at step 50")),
                     qPrintable(band.outliers[0].why));
            QCOMPARE(band.outliers[1].run->id(), ids[kSlowRank]);
            QVERIFY(band.outliers[1].why.contains(QStringLiteral("straggler")));
            QCOMPARE(band.outliers[2].run->id(), ids[kDepartingRank]);
            QVERIFY2(band.outliers[2].why.contains(QStringLiteral("loss above the band")),
                     qPrintable(band.outliers[2].why));
            // Drawn: the focused rank and the three outliers, not the other 12.
            QCOMPARE(plot->drawnRunCount(), 4);
        }
        // Legends: the band (Throughput: its two quantities) and the four lines.
        const QStringList lossLegend = legendNames(loss);
        QCOMPARE(lossLegend.size(), 5);
        QVERIFY(lossLegend.contains(QStringLiteral("job: median smoothed train loss of 16 ranks, 10-90% shaded")));
        QVERIFY(lossLegend.contains(QStringLiteral("rank-0")));
        QVERIFY(std::any_of(lossLegend.begin(), lossLegend.end(),
                            [](const QString& n) { return n.startsWith(QStringLiteral("rank-11 (first non-finite")); }));
        QCOMPARE(legendNames(scale).size(), 5);
        QCOMPARE(legendNames(throughput).size(), 6);
    }

    // The band's points recomputed from the members' smoothed losses by this suite's loop.
    void theBandIsTheMembersQuantilesAtEachStep() {
        RunSet set;
        const std::vector<RunId> ids = addJob(set, QStringLiteral("job"), 16);
        LossPlot loss(&set);
        loss.refreshBands();
        const QCPGraph* median = loss.bandMedianGraph(0);
        const QCPGraph* low = loss.bandLowGraph(0);
        const QCPGraph* high = loss.bandHighGraph(0);
        QVERIFY(median && low && high);
        int checked = 0;
        for (int step = 1; step <= kSteps; ++step) {
            std::vector<double> values;
            for (RunId id : ids) {
                const DecimatedSeries& s = set.run(id)->steps().smoothedLoss();
                for (std::size_t i = 0; i < s.size(); ++i)
                    if (s.x(i) == step && std::isfinite(s.y(i))) values.push_back(s.y(i));
            }
            QCOMPARE(values.size(), std::size_t{16});
            // The same interpolation between the same two order statistics: rounding only.
            constexpr double kTolerance = 1e-12;
            QVERIFY(std::abs(graphY(median, step) - test::numpyQuantile(values, 0.5)) < kTolerance);
            QVERIFY(std::abs(graphY(low, step) - test::numpyQuantile(values, 0.1)) < kTolerance);
            QVERIFY(std::abs(graphY(high, step) - test::numpyQuantile(values, 0.9)) < kTolerance);
            ++checked;
        }
        QCOMPARE(checked, kSteps);
    }

    // The Memory dock draws the job as bands too: RSS and peak RSS (no CUDA on these ranks,
    // so no third entry), the same four runs as lines; the RSS band's median is this
    // suite's quantile of the ranks' RSS (in MiB) at each step.
    void theMemoryPlotDrawsTheJobAsBands() {
        RunSet set;
        const std::vector<RunId> ids = addJob(set, QStringLiteral("job"), 16);
        constexpr int kMemorySteps = 20;
        auto rssBytes = [](int rank, int step) { return (100 + rank + step) * (std::int64_t{1} << 20); };
        for (int r = 0; r < 16; ++r) {
            for (int s = 1; s <= kMemorySteps; ++s)
                set.run(ids[static_cast<std::size_t>(r)])
                    ->takeRecord(toJson(MemoryRecord{s, {rssBytes(r, s), rssBytes(r, s) + (std::int64_t{8} << 20), std::nullopt, {}, {}}}));
            set.run(ids[static_cast<std::size_t>(r)])->endOfBatch();
        }
        set.focus(ids[0]);
        MemoryPlot memory(&set);
        memory.refreshBands();
        QCOMPARE(memory.bands().size(), std::size_t{1});
        QCOMPARE(memory.shownRunCount(), 16);
        QCOMPARE(memory.drawnRunCount(), 4);
        memory.replot();
        const QStringList names = legendNames(memory);
        QVERIFY2(names.size() == 2 + 4 * 2, qPrintable(names.join(" | ")));
        QVERIFY(names.contains(QStringLiteral("job: median process RSS of 16 ranks, 10-90% shaded")));
        QVERIFY(std::none_of(names.begin(), names.end(), [](const QString& n) { return n.contains("CUDA"); }));
        const QCPGraph* median = memory.bandMedianGraph(0, 0);
        QVERIFY(median);
        for (int s = 1; s <= kMemorySteps; ++s) {
            std::vector<double> mib;
            for (int r = 0; r < 16; ++r) mib.push_back(static_cast<double>(rssBytes(r, s)) / (1024.0 * 1024.0));
            QVERIFY2(std::abs(graphY(median, s) - test::numpyQuantile(mib, 0.5)) < 1e-9,
                     qPrintable(QString("step %1: %2").arg(s).arg(graphY(median, s))));
        }
    }

    // A job that recorded no memory: the plot keeps its whole width with its legend empty
    // (an empty legend's maximum width, its margins, had squeezed the plot area to a
    // sliver beside the dock's blank rest).
    void aJobWithoutMemoryRecordsLeavesThePlotItsWidth() {
        RunSet set;
        const std::vector<RunId> ids = addJob(set, QStringLiteral("job"), 16);
        set.focus(ids[0]);
        MemoryPlot memory(&set);
        memory.resize(420, 280);
        memory.show();
        QVERIFY(QTest::qWaitForWindowExposed(&memory));
        memory.refreshBands();
        memory.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(memory.legend->itemCount(), 0);
        // The axis rect's outer rect (its axes' labels included) spans the plot.
        QCOMPARE(memory.axisRect()->outerRect().width(), memory.viewport().width());
        QVERIFY(memory.axisRect()->rect().width() > 420 / 2);
        // Runs read from their folders bring no more: the plot says why it is empty.
        QStringList shown;
        for (int i = 0; i < memory.itemCount(); ++i)
            if (const auto* text = qobject_cast<QCPItemText*>(memory.item(i)); text && text->visible())
                shown << text->text();
        QCOMPARE(shown, QStringList{QStringLiteral("No memory records in these runs: the probes write them on probe steps")});
    }

    void aSmallJobIsDrawnRunByRun() {
        RunSet set;
        const std::vector<RunId> ids = addJob(set, QStringLiteral("small"), 7);
        set.focus(ids[0]);
        LossPlot loss(&set);
        ThroughputPlot throughput(&set);
        loss.refreshBands();
        QVERIFY(loss.bands().empty());
        QCOMPARE(loss.drawnRunCount(), 7);
        QCOMPARE(legendNames(loss).size(), 7);
        QCOMPARE(legendNames(throughput).size(), 7);
        QVERIFY(!loss.bandMedianGraph(0));
    }

    void aFocusedMemberIsDrawnAloneOnTheBand() {
        RunSet set;
        const std::vector<RunId> ids = addJob(set, QStringLiteral("job"), 16);
        set.focus(ids[0]);
        LossPlot loss(&set);
        QCOMPARE(loss.drawnRunCount(), 4);
        set.focus(ids[3]);  // as a click in the Runs list does
        QCOMPARE(loss.drawnRunCount(), 4);  // rank 3 in, rank 0 out
        const QStringList names = legendNames(loss);
        QVERIFY(names.contains(QStringLiteral("rank-3")));
        QVERIFY(!names.contains(QStringLiteral("rank-0")));
        QCOMPARE(names.size(), 5);
    }

    // A report's set pages: its views are made before the runs are fed and no event loop
    // runs; show() still draws the job as one band with its outliers named.
    void aReportDrawsTheJobAsOneBand() {
        RunSet set;
        ReportSetViews views(set);
        // As a report reads its runs: every run in the set first, then their records, the
        // focus already where show() puts it (so show() itself changes no shown run).
        const std::vector<RunId> ids = addJob(set, QStringLiteral("job"), 16, false);
        set.focus(ids[0]);
        for (int r = 0; r < 16; ++r) feed(set, ids[static_cast<std::size_t>(r)], r);
        views.show(ids);
        for (RunSetTimePlot* plot : std::initializer_list<RunSetTimePlot*>{views.loss(), views.scale()}) {
            QCOMPARE(plot->bands().size(), std::size_t{1});
            QCOMPARE(plot->bands().front().outliers.size(), std::size_t{3});
            QCOMPARE(plot->drawnRunCount(), 4);  // the first rank (focused) and the three outliers
        }
        QCOMPARE(legendNames(*views.loss()).size(), 5);
    }
};

QTEST_MAIN(RunBandsTest)
#include "test_gui_run_bands.moc"
