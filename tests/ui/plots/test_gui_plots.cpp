// The plot widgets and the plain helpers under them: decimation keeps the envelope of a
// million points, heatmaps stay fixed-size with their fp16 overlays, hover texts give
// exact values, run records parse back into step metrics.
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "ExactCompare.h"
#include "OneRunSet.h"
#include "window/ProgressEstimator.h"
#include "feed/RunDirectoryNaming.h"
#include "engine/RunRecords.h"
#include "run/StepRecordCodec.h"
#include "runset/DecimatedSeries.h"
#include "plots/HeatmapPlot.h"
#include "plots/HistogramSlicePlot.h"
#include "plots/PowerOfTwoText.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "views/ThroughputPlot.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

std::vector<StepMetrics> lossSteps(int64_t first, int64_t count) {
    std::vector<StepMetrics> steps;
    for (int64_t i = 0; i < count; ++i) {
        StepMetrics m;
        m.step = first + i;
        m.epoch = 1;
        m.loss = 2.0 * std::exp(-static_cast<double>(m.step) / 2e5) + 0.1 * std::sin(0.1 * m.step);
        m.stepSeconds = 0.01;
        m.samplesPerSecond = 6400;
        steps.push_back(m);
    }
    return steps;
}

RunContext contextFor(const std::string& mode, const std::string& scaler = "auto") {
    RunContext context;
    context.config.precision.mode = mode;
    context.config.precision.scaler.kind = scaler;
    context.title = "test";
    return context;
}

}  // namespace

class GuiPlotsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A tick that only adds steps to one run inside the axes repaints that run's layer
    // alone, and what it paints is what a full replot paints; a run that has not changed
    // stays on the static layer; a step outside the axes (or anything else that moves
    // the axes, legend or placeholder) replots everything.
    void aTickRepaintsOnlyTheRunThatGrew() {
        const auto steps = [](int64_t first, std::vector<double> losses) {
            std::vector<StepMetrics> out;
            for (double loss : losses) {
                StepMetrics m;
                m.step = first++;
                m.epoch = 1;
                m.loss = loss;
                out.push_back(m);
            }
            return out;
        };
        OneRunSet feed;
        LossPlot plot(&feed.set);
        plot.resize(800, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        RunContext context;
        context.title = QStringLiteral("recorded");
        feed.addRun(context);
        std::vector<double> falling;
        for (int k = 0; k < 20; ++k) falling.push_back(2.0 - 0.075 * k);
        feed.appendSteps(steps(1, falling));
        feed.endOfBatch();
        context.title = QStringLiteral("live");
        feed.addRun(context);
        feed.appendSteps(steps(1, {1.9, 1.8, 1.7}));
        feed.endOfBatch();
        QTRY_VERIFY(plot.fullReplotCount() > 0);
        QCoreApplication::processEvents();
        // The live run's first growth moves its graphs to the growing layer: one full replot.
        feed.appendSteps(steps(4, {1.6}));
        feed.endOfBatch();
        QCoreApplication::processEvents();
        QCOMPARE(plot.runGraph(0)->layer(), plot.growingLayer());
        QCOMPARE(plot.runGraph(1)->layer()->name(), QStringLiteral("main"));
        const int full = plot.fullReplotCount(), partial = plot.layerReplotCount();

        feed.appendSteps(steps(5, {1.5, 1.4}));
        feed.endOfBatch();
        QCoreApplication::processEvents();
        QCOMPARE(plot.layerReplotCount(), partial + 1);
        QCOMPARE(plot.fullReplotCount(), full);
        QCOMPARE(plot.runGraph(0)->dataCount(), 6);
        const QImage repainted = plot.grab().toImage();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(repainted, plot.grab().toImage());

        // A loss above the axis: the axes move, everything is drawn again.
        feed.appendSteps(steps(7, {5.0}));
        feed.endOfBatch();
        QCoreApplication::processEvents();
        QCOMPARE(plot.fullReplotCount(), full + 2);  // the check above, then this tick
        QCOMPARE(plot.layerReplotCount(), partial + 1);
        QVERIFY(plot.yAxis->range().upper >= 5.0);
    }

    void decimatedSeriesKeepsTheEnvelope() {
        DecimatedSeries s;
        const int n = 1000000;
        for (int i = 0; i < n; ++i) s.append(i, std::sin(i * 0.001) + (i == 654321 ? 50.0 : 0.0));
        QCOMPARE(s.appendedCount(), int64_t{n});
        QVERIFY(s.size() <= s.maxKeptPoints());  // bounded, whatever n is
        QVERIFY(s.size() >= s.bucketLimit() / 2);
        QCOMPARE_BITS(s.maxY(), std::sin(654321 * 0.001) + 50.0);
        QCOMPARE_BITS(s.lastX(), double(n - 1));
        std::vector<DecimatedSeries::Point> view;
        s.view(0, n - 1, 1000, view);
        QVERIFY(view.size() <= 2000);
        QVERIFY(view.size() >= 1000);
        double top = -1e300, bottom = 1e300;
        for (const auto& p : view) {
            top = std::max(top, p.y);
            bottom = std::min(bottom, p.y);
        }
        QCOMPARE_BITS(top, s.maxY());  // the spike survives decimation
        QCOMPARE_BITS(bottom, s.minY());
        for (std::size_t i = 1; i < view.size(); ++i) QVERIFY(view[i - 1].x <= view[i].x);
        QCOMPARE(s.nearestIndex(-5), std::size_t(0));
        QCOMPARE_BITS(s.x(s.nearestIndex(654321.4)), 654321.0);  // the spike is a kept point

        // Below the bucket limit every point is kept: zoomed in, the raw points plus one
        // neighbour on each side.
        DecimatedSeries small;
        for (int i = 0; i < 10000; ++i) small.append(i, std::sin(i * 0.001));
        QCOMPARE(small.size(), std::size_t(10000));
        small.view(1000, 1100, 1000, view);
        QCOMPARE(view.size(), std::size_t(103));
        QCOMPARE_BITS(view.front().x, 999.0);
        QCOMPARE_BITS(view.back().x, 1101.0);
        QCOMPARE(small.nearestIndex(1000.4), std::size_t(1000));
    }

    // What a bucket keeps, by hand: 8 buckets of 1 point fill the limit; the 9th point
    // merges them pairwise into 4 buckets of 2, each keeping its first point and its
    // extremes, and the first non-finite value.
    void decimatedSeriesMergesBucketsExactly() {
        DecimatedSeries s(8);
        const double ys[] = {5, 1, 7, 7, NAN, 2, 3, -4, 9};
        for (int i = 0; i < 9; ++i) s.append(i, ys[i]);
        QCOMPARE(s.pointsPerBucket(), std::size_t(2));
        QCOMPARE(s.appendedCount(), int64_t{9});
        // Buckets {0,1}: first 5, min 1 -> x 0, 1. {2,3}: 7 and 7 -> x 2 only.
        // {4,5}: NaN first, finite 2 -> x 4, 5. {6,7}: 3, -4 -> x 6, 7. Open {8}: x 8.
        const std::vector<double> xs = {0, 1, 2, 4, 5, 6, 7, 8};
        QCOMPARE(s.xs(), xs);
        QVERIFY(std::isnan(s.y(3)));
        QCOMPARE_BITS(s.minY(), -4.0);
        QCOMPARE_BITS(s.maxY(), 9.0);
        // Two more merges: 16 appended points later, buckets of 8 points.
        for (int i = 9; i < 40; ++i) s.append(i, i == 30 ? 100.0 : 0.5);
        QCOMPARE(s.pointsPerBucket(), std::size_t(8));
        QVERIFY(s.size() <= s.maxKeptPoints());
        bool spike = false, nanKept = false, low = false;
        for (std::size_t i = 0; i < s.size(); ++i) {
            spike = spike || (s.x(i) == 30 && s.y(i) == 100.0);
            nanKept = nanKept || (s.x(i) == 4 && std::isnan(s.y(i)));
            low = low || (s.x(i) == 7 && s.y(i) == -4.0);
            if (i) QVERIFY(s.x(i - 1) < s.x(i));
        }
        QVERIFY(spike);
        QVERIFY(nanKept);
        QVERIFY(low);
    }

    void decimatedSeriesLeavesGapsForNonFiniteRuns() {
        DecimatedSeries s;
        for (int i = 0; i < 10000; ++i) s.append(i, (i >= 4000 && i < 6000) ? NAN : 1.0);
        QCOMPARE_BITS(s.minY(), 1.0);
        std::vector<DecimatedSeries::Point> view;
        s.view(0, 9999, 100, view);
        int gaps = 0;
        for (const auto& p : view) gaps += std::isnan(p.y);
        QVERIFY(gaps >= 15);
    }

    void lossPlotShowsAMillionPointsDecimated() {
        OneRunSet feed;
        LossPlot plot(&feed.set);
        plot.resize(1000, 400);
        feed.beginRun(contextFor("fp32"));
        for (int64_t first = 1; first <= 1000000; first += 100000)
            feed.appendSteps(lossSteps(first, 100000));
        feed.endOfBatch();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(feed.run->steps().loss().appendedCount(), int64_t{1000000});
        QVERIFY(feed.run->steps().loss().size() <= feed.run->steps().loss().maxKeptPoints());
        const int shown = plot.rawLossGraph()->dataCount();
        QVERIFY2(shown > 0 && shown <= 2 * 1000 + 2, qPrintable(QString::number(shown)));
        QVERIFY(plot.isFollowing());
        QVERIFY(plot.xAxis->range().upper >= 1000000);

        // Zooming in (as a drag or wheel would) stops following and shows the kept points
        // (every pointsPerBucket()-th step and the extremes between).
        plot.xAxis->setRange(500000, 500300);
        QVERIFY(!plot.isFollowing());
        const int zoomed = plot.rawLossGraph()->dataCount();
        const auto perBucket = static_cast<int>(feed.run->steps().loss().pointsPerBucket());
        QVERIFY2(zoomed >= 300 / perBucket && zoomed <= 3 * (300 / perBucket + 2) + 2,
                 qPrintable(QStringLiteral("%1 points, buckets of %2").arg(zoomed).arg(perBucket)));
        feed.appendSteps(lossSteps(1000001, 10));
        feed.endOfBatch();
        QCOMPARE_BITS(plot.xAxis->range().lower, 500000.0);  // the user's view is kept
        plot.resetView();
        QVERIFY(plot.isFollowing());
        QVERIFY(plot.xAxis->range().upper >= 1000010);
    }

    // The bound: a million steps, and the plot still holds at most its bound of
    // points while showing the lowest loss, the highest, and the first NaN.
    void lossPlotFedAMillionStepsKeepsMinMaxAndFirstNaN() {
        OneRunSet feed;
        LossPlot plot(&feed.set);
        plot.resize(1000, 400);
        feed.beginRun(contextFor("fp16"));
        for (int64_t first = 1; first <= 1000000; first += 50000) {
            auto steps = lossSteps(first, 50000);
            for (auto& m : steps) {
                if (m.step == 271828) m.loss = -50.0;  // the lowest
                if (m.step == 314159) m.loss = 1e6;    // the highest
                if (m.step == 777777) m.loss = NAN;    // the first NaN
                if (m.step > 900000) m.loss = INFINITY;
            }
            feed.appendSteps(steps);
        }
        feed.endOfBatch();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        const DecimatedSeries& loss = feed.run->steps().loss();
        QVERIFY(loss.size() <= loss.maxKeptPoints());
        QCOMPARE_BITS(loss.minY(), -50.0);
        QCOMPARE_BITS(loss.maxY(), 1e6);
        const auto at = [&](double step) -> std::optional<double> {
            const std::size_t i = loss.lowerIndex(step);
            if (i < loss.size() && loss.x(i) == step) return loss.y(i);
            return std::nullopt;
        };
        QCOMPARE(at(271828), std::optional<double>(-50.0));
        QCOMPARE(at(314159), std::optional<double>(1e6));
        QVERIFY(at(777777).has_value() && std::isnan(*at(777777)));
        for (std::size_t i = 0; i < loss.size() && loss.x(i) < 777777; ++i)
            QVERIFY(std::isfinite(loss.y(i)));
        // Drawn: the spike is in the decimated view of the whole run.
        double top = 0.0;
        for (auto it = plot.rawLossGraph()->data()->constBegin();
             it != plot.rawLossGraph()->data()->constEnd(); ++it)
            if (std::isfinite(it->value)) top = std::max(top, it->value);
        QCOMPARE_BITS(top, 1e6);
    }

    void lossPlotMarksSkippedStepsAndEpochs() {
        OneRunSet feed;
        LossPlot plot(&feed.set);
        plot.resize(800, 400);
        feed.beginRun(contextFor("fp16"));
        auto steps = lossSteps(1, 100);
        steps[9].stepSkipped = true;
        steps[19].loss = NAN;
        steps[19].stepSkipped = true;
        feed.appendSteps(steps);
        EpochMetrics e;
        e.epoch = 1;
        e.step = 100;
        e.valLoss = 1.25;
        e.valAccuracy = 0.875;
        feed.appendEpoch(e);
        feed.endOfBatch();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(plot.skippedStepGraph()->dataCount(), 2);
        QCOMPARE(plot.validationLossGraph()->dataCount(), 1);
        QCOMPARE(plot.validationAccuracyGraph()->dataCount(), 1);
        QVERIFY(plot.yAxis2->visible());
        const QString stepText = plot.hoverText(10, QPoint(-1000, 0));
        QVERIFY2(stepText.contains("step 10") && stepText.contains("skipped"),
                 qPrintable(stepText));
        const QPoint epochPixel(int(plot.xAxis->coordToPixel(100)), 50);
        const QString epochText = plot.hoverText(100, epochPixel);
        QVERIFY2(epochText.contains("val loss 1.25") && epochText.contains("87.5 %"),
                 qPrintable(epochText));

        plot.setLogarithmic(true);
        QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(plot.yAxis->range().lower > 0);
        QVERIFY(plot.logarithmicAction()->isChecked());
    }

    void scalePlotLabelsBackoffsWithTheLayer() {
        OneRunSet feed;
        ScalePlot plot(&feed.set);
        plot.resize(800, 400);
        feed.beginRun(contextFor("fp16"));
        std::vector<StepMetrics> steps;
        double scale = 65536;
        for (int64_t i = 1; i <= 50; ++i) {
            StepMetrics m;
            m.step = i;
            m.scale = scale;
            m.growthTracker = i % 10;
            if (i == 20) {
                m.foundInf = m.stepSkipped = true;
                m.scaleChange = ScaleChange::Backoff;
                m.firstNonFiniteLayer = "fc2";
                scale /= 2;
            }
            m.scaleAfter = scale;
            steps.push_back(m);
        }
        feed.appendSteps(steps);
        feed.endOfBatch();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(feed.run->steps().backoffs().size(), std::size_t(1));
        QCOMPARE(plot.backoffGraph()->dataCount(), 1);
        QCOMPARE(plot.trackerGraph()->dataCount(), 50);
        const QPoint marker(int(plot.xAxis->coordToPixel(20)), int(plot.yAxis->coordToPixel(16)));
        const QString text = plot.hoverText(20, marker);
        QVERIFY2(
            text.contains("fc2") && text.contains("2^16 = 65536") && text.contains("2^15 = 32768"),
            qPrintable(text));
        QVERIFY(plot.yAxis->range().contains(15) && plot.yAxis->range().contains(16));
    }

    void throughputPlotHasUnits() {
        OneRunSet feed;
        ThroughputPlot plot(&feed.set);
        feed.beginRun(contextFor("fp32"));
        feed.appendSteps(lossSteps(1, 10));
        feed.endOfBatch();
        QVERIFY(plot.yAxis->label().contains("samples/s"));
        QVERIFY(plot.yAxis2->label().contains("ms"));
        QCOMPARE(plot.stepTimeGraph()->dataCount(), 10);
        QVERIFY(plot.hoverText(5, QPoint()).contains("10 ms"));
    }

    // An axis label too long for a short plot (a report's overlay) loses its parenthesis
    // before the words naming the quantity are cut, and gets it back with room.
    void axisLabelsDropTheirGlossBeforeTheyAreCut() {
        OneRunSet feed;
        LossPlot plot(&feed.set);
        feed.beginRun(contextFor("fp32"));
        feed.appendSteps(lossSteps(1, 10));
        feed.endOfBatch();
        const auto laidOut = [&plot](int height) {
            plot.resize(600, height);
            QCoreApplication::processEvents();
            plot.replot(QCustomPlot::rpImmediateRefresh);
            return plot.yAxis->label();
        };
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        const QString full = laidOut(500);
        const qsizetype gloss = full.indexOf(QStringLiteral(" ("));
        QVERIFY2(gloss > 0, qPrintable(full));
        const QString shortened = laidOut(200);
        QVERIFY2(plot.axisRect()->height() < QFontMetrics(plot.yAxis->labelFont()).horizontalAdvance(full),
                 "the short plot must be too short for the whole label");
        QCOMPARE(shortened, full.left(gloss));
        QCOMPARE(laidOut(500), full);
    }

    // The mouse, written once (InteractivePlot) for every plot: hovering shows the plot's
    // own text for the point under the mouse, a point without one and leaving the plot
    // hide it.
    void hoverShowsThePlotsTextAndLeavingHidesIt() {
        QWidget window;
        auto* row = new QHBoxLayout(&window);
        OneRunSet feed;
        auto* plot = new ThroughputPlot(&feed.set, &window);
        auto* beside = new QLabel(QStringLiteral("beside the plot"), &window);
        row->addWidget(plot, 1);
        row->addWidget(beside);
        window.resize(800, 400);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        feed.beginRun(contextFor("fp32"));
        feed.appendSteps(lossSteps(1, 10));
        feed.endOfBatch();
        plot->replot(QCustomPlot::rpImmediateRefresh);

        const QPoint inside(int(plot->xAxis->coordToPixel(5.0)), plot->axisRect()->center().y());
        QTest::mouseMove(plot, inside);
        QTRY_VERIFY(QToolTip::isVisible());
        // Step 5's step time, 0.01 s, as the plot writes it.
        QVERIFY2(QToolTip::text().contains("10 ms"), qPrintable(QToolTip::text()));
        QCOMPARE(QToolTip::text(), plot->tooltipText(inside));

        // Above the plot area (the legend row) there is nothing to say: no tooltip.
        const QPoint outside(plot->axisRect()->center().x(), plot->axisRect()->top() - 3);
        QVERIFY(plot->tooltipText(outside).isEmpty());
        QTest::mouseMove(plot, outside);
        QTRY_VERIFY(!QToolTip::isVisible());

        QTest::mouseMove(plot, inside);
        QTRY_VERIFY(QToolTip::isVisible());
        QTest::mouseMove(beside, beside->rect().center());  // the plot is left
        QTRY_VERIFY(!QToolTip::isVisible());
    }

    void hoverOnAHeatmapCellAndAHistogramBarShowsTheirCounts() {
        HeatmapPlot map;
        map.resize(700, 400);
        map.show();
        QVERIFY(QTest::qWaitForWindowExposed(&map));
        for (int step = 10; step <= 100; step += 10) {
            std::vector<double> counts(static_cast<std::size_t>(map.rowCount()), 0.0);
            counts[static_cast<std::size_t>(-10 + 64)] = step;  // bin -10: [2^-10, 2^-9)
            map.appendColumn(step, counts);
        }
        map.setFocusYRange(-20, 0);
        map.refresh();
        map.replot(QCustomPlot::rpImmediateRefresh);
        const QPoint cell(int(map.xAxis->coordToPixel(50.0)), int(map.yAxis->coordToPixel(-9.5)));
        QTest::mouseMove(&map, cell);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains("step 50") && QToolTip::text().contains(": 50"),
                 qPrintable(QToolTip::text()));
        map.hide();
        QTRY_VERIFY(!QToolTip::isVisible());

        HistogramSlicePlot slice;
        slice.resize(700, 400);
        slice.show();
        QVERIFY(QTest::qWaitForWindowExposed(&slice));
        HistogramSlicePlot::Slice data;
        data.step = 7;
        data.layer = QStringLiteral("fc1");
        data.histogram.counts[static_cast<std::size_t>(-3 + 64)] = 123;  // bin -3
        slice.setSlice(data);
        slice.replot(QCustomPlot::rpImmediateRefresh);
        const QPoint bar(int(slice.xAxis->coordToPixel(-2.5)), slice.axisRect()->center().y());
        QTest::mouseMove(&slice, bar);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains("123 elements") && QToolTip::text().contains("step 7"),
                 qPrintable(QToolTip::text()));
        slice.hide();
    }

    // The slice's exponent axis (PowerOfTwoTicker at least 4 exponents a step): ticks on
    // multiples of 4 labelled 2^k, readable from the plot's least width up.
    void histogramSliceAxisIsReadableAtAnyWidth() {
        HistogramSlicePlot slice;
        HistogramSlicePlot::Slice data;
        data.histogram.counts[static_cast<std::size_t>(-3 + 64)] = 1000;
        slice.setSlice(data);
        for (const QSize size : {slice.minimumSize(), QSize(700, 400)}) {
            slice.resize(size);
            slice.show();
            QVERIFY(QTest::qWaitForWindowExposed(&slice));
            slice.replot(QCustomPlot::rpImmediateRefresh);
            const QVector<double> ticks = slice.xAxis->tickVector();
            const QVector<QString> labels = slice.xAxis->tickVectorLabels();
            QVERIFY2(ticks.size() >= 3 && ticks.size() <= 6, qPrintable(QString::number(ticks.size())));
            const QFontMetrics metrics(slice.xAxis->tickLabelFont());
            for (int i = 0; i < ticks.size(); ++i) {
                // A multiple of 4 (fmod of a negative multiple is -0, which is zero too).
                QVERIFY2(std::fmod(ticks[i], 4.0) == 0.0, qPrintable(QString::number(ticks[i])));
                QCOMPARE(labels[i], powerOfTwoText(ticks[i]));
                if (i == 0) continue;
                const double gap = slice.xAxis->coordToPixel(ticks[i]) - slice.xAxis->coordToPixel(ticks[i - 1]);
                QVERIFY2(gap > 0.5 * (metrics.horizontalAdvance(labels[i]) +
                                      metrics.horizontalAdvance(labels[i - 1])) + 4,
                         qPrintable(labels[i - 1] + " " + labels[i]));
            }
            slice.hide();
        }
    }

    // A double click (left button) puts back the ranges the plot chose itself, whatever
    // the user zoomed to; the same for the three kinds of plot.
    void doubleClickResetsTheRangesOfEveryKindOfPlot() {
        const auto zoomThenDoubleClick = [](QCustomPlot& plot) {
            plot.resize(700, 400);
            plot.show();
            QVERIFY(QTest::qWaitForWindowExposed(&plot));
            plot.replot(QCustomPlot::rpImmediateRefresh);
            const QCPRange x = plot.xAxis->range();
            const QCPRange y = plot.yAxis->range();
            plot.xAxis->setRange(x.lower + 0.4 * x.size(), x.lower + 0.5 * x.size());
            plot.yAxis->setRange(y.lower + 0.1 * y.size(), y.lower + 0.2 * y.size());
            QVERIFY(plot.xAxis->range() != x);
            const QPoint centre = plot.axisRect()->center();
            QTest::mouseDClick(&plot, Qt::MiddleButton, {}, centre);  // not the reset button
            QVERIFY(plot.xAxis->range() != x);
            QTest::mouseDClick(&plot, Qt::LeftButton, {}, centre);
            QCOMPARE_BITS(plot.xAxis->range().lower, x.lower);
            QCOMPARE_BITS(plot.xAxis->range().upper, x.upper);
            QCOMPARE_BITS(plot.yAxis->range().lower, y.lower);
            QCOMPARE_BITS(plot.yAxis->range().upper, y.upper);
        };

        OneRunSet feed;
        ThroughputPlot series(&feed.set);
        feed.beginRun(contextFor("fp32"));
        feed.appendSteps(lossSteps(1, 100));
        feed.endOfBatch();
        zoomThenDoubleClick(series);
        if (QTest::currentTestFailed()) return;
        QVERIFY(series.isFollowing());

        HeatmapPlot map;
        for (int step = 10; step <= 100; step += 10)
            map.appendColumn(step, std::vector<double>(std::size_t(map.rowCount()), 1.0));
        map.refresh();
        zoomThenDoubleClick(map);
        if (QTest::currentTestFailed()) return;

        HistogramSlicePlot slice;
        HistogramSlicePlot::Slice data;
        data.histogram.counts[static_cast<std::size_t>(-3 + 64)] = 1000;
        slice.setSlice(data);
        zoomThenDoubleClick(slice);
    }

    void heatmapPlaceholderShowsItsTextAndHidesWhenEmpty() {
        HeatmapPlot map;
        QVERIFY(map.placeholderText().isEmpty());
        map.setPlaceholder(QStringLiteral("No histograms yet"));
        QCOMPARE(map.placeholderText(), QStringLiteral("No histograms yet"));
        map.setPlaceholder(QString());
        QVERIFY(map.placeholderText().isEmpty());
    }

    // The map draws the columns it is handed, nothing averaged: the run's store is what
    // bounds and thins them (ProbeSeriesStore); the grid follows the map's width.
    void heatmapDrawsTheColumnsItIsHanded() {
        HeatmapPlot map;
        map.resize(800, 400);
        QCOMPARE(map.rowCount(), 100);  // log2|g| -64..32 and NaN, +Inf, -Inf
        QCOMPARE(map.heatmapLayout().capacity, 1024);
        for (int c = 0; c < 600; ++c) {
            std::vector<double> counts(100, 0.0);
            for (int r = 0; r < 97; ++r) {
                const double y = -64 + r;
                counts[r] =
                    std::round(1000.0 * std::exp(-0.5 * std::pow((y + 20 + c % 5) / 3.0, 2)));
            }
            counts[97] = c == 300 ? 4 : 0;  // NaN row
            map.appendColumn(100 * (c + 1), counts);
        }
        map.refresh();
        map.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(map.columnCount(), 600);
        // The drawn grid holds one cell per pixel column of the map, however many columns
        // came; 600 columns in fewer cells share them, and the cell holding column 300
        // shows its NaN count (the largest of the columns it holds), not a neighbour's 0.
        const int cells = map.colorMap()->data()->keySize();
        QCOMPARE(cells, map.axisRect()->width());
        QVERIFY2(cells < 600, qPrintable(QString::number(cells)));
        int nanCell = -1;
        map.namedRowsMap()->data()->coordToCell(30100.0, 0.0, &nanCell, nullptr);
        QCOMPARE_BITS(map.namedRowsMap()->data()->cell(nanCell, 0), 4.0);
        int cellsWithNaN = 0;
        for (int c = 0; c < cells; ++c) cellsWithNaN += map.namedRowsMap()->data()->cell(c, 0) == 4.0;
        // A column narrower than a cell touches one cell or two, never more.
        QVERIFY2(cellsWithNaN == 1 || cellsWithNaN == 2, qPrintable(QString::number(cellsWithNaN)));
        // A wider map regrids to its new width.
        map.show();
        QVERIFY(QTest::qWaitForWindowExposed(&map));
        map.resize(1000, 400);
        QCoreApplication::processEvents();
        map.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(map.colorMap()->data()->keySize(), map.axisRect()->width());
        QVERIFY(map.colorMap()->data()->keySize() > cells);
        QCOMPARE(map.stepOfColumn(0), int64_t(100));
        QCOMPARE(map.stepOfColumn(599), int64_t(60000));
        // Column 300 is the one handed over, not a mean with its neighbour.
        QCOMPARE_BITS(map.value(300, 97), 4.0);
        QCOMPARE_BITS(map.value(301, 97), 0.0);
        QCOMPARE_BITS(map.smallestPositive(), 1.0);
        QCOMPARE_BITS(map.largest(), 1000.0);
        QVERIFY(map.colorScale()->dataRange().lower > 0);
        QCOMPARE(map.colorScale()->dataScaleType(), QCPAxis::stLogarithmic);
        QVERIFY(!map.colorScale()->axis()->label().isEmpty());
        // Maps side by side share one colour scale.
        map.setColourRange(0.5, 5000.0);
        map.refresh();
        QCOMPARE_BITS(map.colorScale()->dataRange().lower, 0.5);
        QCOMPARE_BITS(map.colorScale()->dataRange().upper, 5000.0);

        // A column of the wrong height is refused, not guessed at.
        map.appendColumn(1, std::vector<double>(5, 1.0));
        QCOMPARE(map.columnCount(), 600);
    }

    void heatmapOverlaysFollowTheScale() {
        HeatmapPlot map;
        map.resize(800, 400);
        map.showFp16Limits(16);
        QCOMPARE(map.overlayCount(), 6);  // 3 bands + 3 scaled lines
        // The scaled lines sit at each limit minus log2(scale); ids follow creation order.
        // The limits as round to nearest decides them: |x| <= 2^-25 flushes (bin -25
        // rounds up to 2^-24), subnormal below 2^-14, overflow from bin 16.
        QCOMPARE_BITS(map.overlayY(4), -41.0);
        QCOMPARE_BITS(map.overlayY(5), -30.0);
        QCOMPARE_BITS(map.overlayY(6), 0.0);
        map.showFp16Limits(10);
        QCOMPARE(map.overlayCount(), 6);
        QCOMPARE_BITS(map.overlayY(4), -35.0);
        QCOMPARE_BITS(map.overlayY(6), 6.0);
        // The bands are the unscaled limits.
        QCOMPARE_BITS(map.overlayY(2), -25.0);
        QCOMPARE_BITS(map.overlayY(3), 16.0);

        const int line = map.addLine(-3.0, "custom", Qt::black);
        QCOMPARE_BITS(map.overlayY(line), -3.0);
        map.moveOverlay(line, -5.0);
        QCOMPARE_BITS(map.overlayY(line), -5.0);
        map.removeOverlay(line);
        QCOMPARE(map.overlayCount(), 6);
        map.clearOverlays();
        QCOMPARE(map.overlayCount(), 0);
    }

    void heatmapHoverNamesTheCell() {
        HeatmapPlot map;
        map.resize(800, 400);
        std::vector<double> counts(100, 0.0);
        counts[64 - 20] = 7;  // log2|g| in [-20, -19)
        counts[97] = 3;       // NaN
        map.appendColumn(42, counts);
        map.refresh();
        map.replot(QCustomPlot::rpImmediateRefresh);
        const QPoint cell(int(map.xAxis->coordToPixel(map.columnX(0))), int(map.yAxis->coordToPixel(-19.5)));
        const QString text = map.tooltipText(cell);
        QVERIFY2(text.contains("step 42") && text.contains("[-20, -19)") && text.contains(": 7"),
                 qPrintable(text));
        // NaN/Inf rows have their own strip above the map.
        QVERIFY(map.namedRowsRect());
        QVERIFY(map.namedRowsRect()->rect().bottom() < map.yAxis->axisRect()->rect().top());
        int key = 0, value = 0;
        map.namedRowsMap()->data()->coordToCell(map.columnX(0), 0.0, &key, &value);
        QCOMPARE_BITS(map.namedRowsMap()->data()->cell(key, value), 3.0);
        QCPAxis* names = map.namedRowsRect()->axis(QCPAxis::atLeft);
        const QPoint nanCell(cell.x(), int(names->coordToPixel(0)));
        const QString nanText = map.tooltipText(nanCell);
        QVERIFY2(nanText.contains("NaN") && nanText.contains(": 3"), qPrintable(nanText));
    }

    // Probes at steps 1, 50 and 100 of a 120-step run: the x axis is in steps and spans the
    // run, each column stands at its step about as wide as the probe cadence, and the axis
    // has several readable ticks (not a single "1" at the left).
    void heatmapColumnsStandAtTheirSteps() {
        HeatmapPlot map;
        map.resize(700, 400);
        for (int64_t step : {1, 50, 100}) {
            std::vector<double> counts(100, 0.0);
            counts[64 - 10] = 5;
            map.appendColumn(step, counts);
        }
        map.setStepExtent(120);
        map.refresh();
        map.replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(map.xAxis->range().lower <= 1.0);
        QVERIFY(map.xAxis->range().upper >= 120.0);
        QVERIFY(map.xAxis->range().upper <= 130.0);
        QCOMPARE_BITS(map.columnX(1), 50.0);
        QCOMPARE(map.columnAt(50.0), 1);
        QCOMPARE(map.columnAt(74.0), 1);
        QCOMPARE(map.columnAt(76.0), 2);
        QCOMPARE(map.columnAt(124.0), 2);  // the last column is as wide as the one before
        QCOMPARE(map.columnAt(126.0), -1);
        // The drawn cells agree: colour at each probe step.
        const auto cellAt = [&](double x) {
            int key = 0, value = 0;
            map.colorMap()->data()->coordToCell(x, -9.5, &key, &value);
            return map.colorMap()->data()->cell(key, value);
        };
        QCOMPARE_BITS(cellAt(50.0), 5.0);
        QCOMPARE_BITS(cellAt(100.0), 5.0);
        // A column's width on screen: about 50 steps of a 125-step axis.
        const double width = map.xAxis->coordToPixel(75.0) - map.xAxis->coordToPixel(25.0);
        QVERIFY(width > 0.3 * map.xAxis->axisRect()->width());
        const QVector<QString> labels = map.xAxis->tickVectorLabels();
        QVERIFY2(labels.size() >= 3, qPrintable(QStringList(labels.begin(), labels.end()).join(' ')));
        // Readable: the labels do not touch.
        const QVector<double> ticks = map.xAxis->tickVector();
        const QFontMetrics metrics(map.xAxis->tickLabelFont());
        for (int i = 1; i < ticks.size(); ++i) {
            const double gap = map.xAxis->coordToPixel(ticks[i]) - map.xAxis->coordToPixel(ticks[i - 1]);
            QVERIFY(gap > 0.5 * (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) + 4);
        }
        // The hover names the probe step under the mouse.
        const QPoint at(int(map.xAxis->coordToPixel(60.0)), int(map.yAxis->coordToPixel(-9.5)));
        QVERIFY2(map.tooltipText(at).contains("step 50"), qPrintable(map.tooltipText(at)));
    }

    void namedRowsMakeALayerMap() {
        HeatmapPlot map;
        HeatmapLayout layout;
        layout.valueBins = 0;
        layout.firstBinY = 0;
        layout.extraRows = {"fc1", "fc2", "loss"};
        layout.yLabel = "layer";
        layout.colourLabel = "flushed fraction";
        map.configure(layout);
        QCOMPARE(map.rowCount(), 3);
        QVERIFY(!map.namedRowsRect());  // the names are the map's own rows
        map.appendColumn(1, {0.5, 0.0, 0.25});
        QCOMPARE_BITS(map.value(0, 2), 0.25);
    }

    // Opening a long run reads step lines without JSON (parseStepRecordText); whatever
    // it accepts must give exactly what stepFromJson gives for the parsed line, and
    // what it refuses is left to the JSON path.
    void stepLinesReadWithoutJsonAsWithIt() {
        const auto same = [](double a, double b) {
            return a == b || (std::isnan(a) && std::isnan(b));
        };
        const auto check = [&](const std::string& line, bool fast) {
            StepMetrics quick;
            const bool accepted = parseStepRecordText(line, quick);
            QVERIFY2(accepted == fast, line.c_str());
            if (!accepted) return;
            const auto slow = stepFromJson(nlohmann::json::parse(line));
            QVERIFY2(slow.has_value(), line.c_str());
            QCOMPARE(quick.step, slow->step);
            QCOMPARE(quick.epoch, slow->epoch);
            QCOMPARE(quick.growthTracker, slow->growthTracker);
            QCOMPARE(quick.foundInf, slow->foundInf);
            QCOMPARE(quick.stepSkipped, slow->stepSkipped);
            QVERIFY(quick.scaleChange == slow->scaleChange);
            QCOMPARE(quick.firstNonFiniteLayer, slow->firstNonFiniteLayer);
            for (auto [a, b] : {std::pair{quick.loss, slow->loss},
                                {quick.lr, slow->lr},
                                {quick.gradNorm, slow->gradNorm},
                                {quick.gradNormClipped, slow->gradNormClipped},
                                {quick.stepSeconds, slow->stepSeconds},
                                {quick.samplesPerSecond, slow->samplesPerSecond},
                                {quick.scale, slow->scale},
                                {quick.scaleAfter, slow->scaleAfter}})
                QVERIFY2(same(a, b), qPrintable(QStringLiteral("%1: %2 vs %3")
                                                    .arg(QString::fromStdString(line))
                                                    .arg(a)
                                                    .arg(b)));
        };
        StepMetrics m;
        m.step = 7;
        m.epoch = 1;
        m.loss = NAN;
        m.gradNorm = -INFINITY;
        m.gradNormClipped = 0.125;
        m.scale = 1e-300;
        m.scaleAfter = INFINITY;
        m.lr = 3e-4;
        m.samplesPerSecond = 1234.5;
        m.foundInf = true;
        std::string written;
        appendStepRecordText(m, written);
        check(written, true);
        m.scaleChange = ScaleChange::Backoff;
        m.firstNonFiniteLayer = "fc2";
        written.clear();
        appendStepRecordText(m, written);
        check(written, true);
        check("{\"step\":3,\"type\":\"step\"}", true);  // defaults
        check("{\"loss\":null,\"lr\":1,\"step\":3,\"type\":\"step\"}", true);  // untagged null, int lr
        check("{\"loss\":\"x\",\"loss_nonfinite\":\"-inf\",\"step\":3,\"type\":\"step\"}", true);
        check("{\"future_field\":\"ok\",\"list\":[1,2.5],\"more\":12.5e-3,\"step\":3,\"type\":\"step\",\"x\":true}",
              true);
        check("{\"found_inf\":true,\"step\":3,\"step_skipped\":1,\"type\":\"step\"}", true);
        // Keys out of order (every writer of this program sorts them), or one twice (the
        // last one wins in JSON): the JSON path reads them.
        check("{\"type\":\"step\",\"step\":3}", false);
        check("{\"step\":3,\"step\":4,\"type\":\"step\"}", false);
        check("{\"step\":3.0,\"type\":\"step\"}", false);          // not an integer step
        check("{\"step\":3,\"type\":\"epoch\"}", false);
        check("{\"step\":3, \"type\":\"step\"}", false);  // whitespace: the JSON path reads it
        check("{\"step\":3,\"type\":\"step\",\"layer\":\"a\\\"b\"}", false);
        check("{\"step\":3,\"type\":\"step\",\"nested\":{\"a\":1}}", false);
        check("{\"step\":3,\"type\":\"step\",\"list\":[1]}", false);  // out of order
        check("{\"step\":03,\"type\":\"step\"}", false);
        check("{\"step\":3,\"type\":\"step\"} ", false);
        check("{\"step\":3,\"type\":\"step\",}", false);
        check("{\"step\":99999999999999999999,\"type\":\"step\"}", false);
        check("{\"step\":3,\"loss\":-,\"type\":\"step\"}", false);
        check("{\"step\":3,\"loss\":nan,\"type\":\"step\"}", false);
        check("{\"step\":3,\"type\":\"step\"", false);
    }

    void stepRecordsParseBack() {
        StepMetrics m;
        m.step = 12;
        m.epoch = 2;
        m.loss = NAN;
        m.lr = 0.001;
        m.gradNorm = INFINITY;
        m.gradNormClipped = 1.0;
        m.stepSeconds = 0.25;
        m.samplesPerSecond = 512;
        m.scale = 65536;
        m.scaleAfter = 32768;
        m.growthTracker = 0;
        m.foundInf = m.stepSkipped = true;
        m.scaleChange = ScaleChange::Backoff;
        m.firstNonFiniteLayer = "conv2";
        const auto parsed = stepFromJson(stepRecord(m));
        QVERIFY(parsed.has_value());
        QCOMPARE(parsed->step, int64_t(12));
        QVERIFY(std::isnan(parsed->loss));
        QVERIFY(std::isinf(parsed->gradNorm) && parsed->gradNorm > 0);
        QCOMPARE_BITS(parsed->scaleAfter, 32768.0);
        QVERIFY(parsed->stepSkipped && parsed->foundInf);
        QVERIFY(parsed->scaleChange == ScaleChange::Backoff);
        QCOMPARE(QString::fromStdString(parsed->firstNonFiniteLayer), QString("conv2"));
        QVERIFY(!stepFromJson(nlohmann::json{{"type", "epoch"}}).has_value());

        EpochMetrics e;
        e.epoch = 1;
        e.step = 100;
        e.valLoss = 0.5;
        e.valAccuracy = NAN;
        const auto epoch = epochFromJson(epochRecord(e));
        QVERIFY(epoch.has_value());
        QCOMPARE_BITS(epoch->valLoss, 0.5);
        QVERIFY(std::isnan(epoch->valAccuracy));
    }

    void progressEstimateIgnoresPauses() {
        ProgressEstimator p;
        p.start(100, 0.0);
        QVERIFY(p.etaSeconds() < 0);
        p.update(10, 1.0);
        p.update(20, 2.0);
        QCOMPARE_BITS(p.etaSeconds(), 8.0);  // 10 steps/s, 80 to go
        p.pause(2.0);
        p.resume(12.0);  // ten paused seconds do not count
        p.update(30, 13.0);
        QCOMPARE_BITS(p.etaSeconds(), 7.0);
        QCOMPARE_BITS(p.fraction(), 0.3);
    }

    void runDirectoriesAreNewAndReadable() {
        QTemporaryDir root;
        RunConfig c;
        c.name = "fp16 / no scaler?";
        const QDateTime when(QDate(2026, 1, 2), QTime(3, 4, 5));
        const QString first = newRunDirectory(root.path(), c, when);
        QCOMPARE(first, root.path() + "/2026-01-02T03-04-05-fp16---no-scaler-");
        QVERIFY(QDir().mkpath(first));
        QCOMPARE(newRunDirectory(root.path(), c, when), first + "-2");
        c.name.clear();
        QCOMPARE(runDisplayName(c), QString("simple_cnn-fp32"));
    }
};

QTEST_MAIN(GuiPlotsTest)
#include "test_gui_plots.moc"
