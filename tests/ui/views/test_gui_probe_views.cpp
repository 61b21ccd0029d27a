// The window's probe views: gradient histograms (heatmap, fp16 bands, limits moving with
// the loss scale, slice), underflow (layer x step fractions, lines per layer), the NaN
// inspector (header, frames table, culprit, rerun with the layer in fp32) and memory.
// Hand-built records go in; the cells, lines and texts the views then hold come out and
// are compared with values worked out by hand. Two cases train for real: a recorded run
// opened from disk, and the same config trained live by the window.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "OneRunSet.h"
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "configure/ConfigPanel.h"
#include "feed/EngineBridge.h"
#include "window/MainWindow.h"
#include "feed/RunControl.h"
#include "engine/Engine.h"
#include "plots/HeatmapPlot.h"
#include "views/MemoryPlot.h"
#include "probes/StepAuditRecords.h"
#include "probes/ProbeRecords.h"
#include "views/GradientHistogramView.h"
#include "views/HistogramMapPane.h"
#include "plots/HistogramSlicePlot.h"
#include "views/NanInspectorView.h"
#include "views/StatsFramesTable.h"
#include "plots/UnderflowFractionPlot.h"
#include "views/UnderflowView.h"
#include "views/UpdatesPlot.h"
#include "views/UpdatesView.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

// Row of exponent bin k in the histogram heatmap (bins -64..32 first).
int binRow(int k) {
    return k - kMinExponent;
}

RunContext contextFor(const RunConfig& config) {
    return RunContext{config, QStringLiteral("test"), QString(), false};
}

RunConfig probedConfig() {
    RunConfig config;
    config.probes.every = 1;
    return config;
}

nlohmann::json runInfo(const std::vector<std::string>& layers) {
    return {{"type", "run_info"}, {"layers", layers}};
}

StepMetrics stepWithScale(int64_t step, double scale) {
    StepMetrics m;
    m.step = step;
    m.epoch = 1;
    m.scale = scale;
    m.scaleAfter = scale;
    return m;
}

HistogramRecord histogram(int64_t step, const std::string& layer, std::string_view kind,
                         std::vector<std::pair<int, int64_t>> bins, int64_t zero = 0,
                         int64_t nan = 0, int64_t posInf = 0) {
    HistogramRecord r;
    r.step = step;
    r.layer = layer;
    r.kind = std::string(kind);
    for (auto [k, count] : bins)
        r.histogram.counts[static_cast<std::size_t>(k - kMinExponent)] = count;
    r.histogram.zero = zero;
    r.histogram.nan = nan;
    r.histogram.posInf = posInf;
    return r;
}

UnderflowRecord underflow(int64_t step, const std::string& layer, int64_t flushed, int64_t subnormal,
                         int64_t normal, int64_t overflow = 0, double multiplier = 1.0) {
    UnderflowRecord r;
    r.step = step;
    r.layer = layer;
    r.kind = std::string(probe_kind::kParamGradScaled);
    r.multiplier = multiplier;
    r.counts.flushed = flushed;
    r.counts.subnormal = subnormal;
    r.counts.normal = normal;
    r.counts.overflow = overflow;
    return r;
}

TensorStats stats(double min, double max, double mean, double absMax, int64_t nan = 0,
                  int64_t posInf = 0, int64_t numel = 64) {
    TensorStats s;
    s.min = min;
    s.max = max;
    s.mean = mean;
    s.absMax = absMax;
    s.nan = nan;
    s.posInf = posInf;
    s.numel = numel;
    return s;
}

// fc2's output turns NaN/Inf in forward at step 5; frames of steps 4 and 5.
NonFiniteRecord fc2ActivationEvent() {
    NonFiniteRecord r;
    r.event.step = 5;
    r.event.layer = "fc2";
    r.event.layerIndex = 2;
    r.event.phase = "forward";
    r.event.tensor = "activation";
    r.event.nan = 3;
    r.event.posInf = 1;
    r.event.numel = 64;
    StatsFrame before;
    before.step = 4;
    before.layers = {{"fc1", 0, stats(-1.0, 2.0, 0.5, 2.0), stats(-0.25, 0.125, 0.0, 0.25)},
                     {"act1", 1, stats(0.0, 2.0, 0.75, 2.0), stats(-0.25, 0.125, 0.0, 0.25)},
                     {"fc2", 2, stats(-3.0, 70000.0, 12.5, 70000.0), stats(-0.5, 0.5, 0.0, 0.5)}};
    StatsFrame at;
    at.step = 5;
    const double noFinite = std::nan("");
    at.layers = {{"fc1", 0, stats(-1.5, 2.5, 0.25, 2.5), std::nullopt},
                 {"act1", 1, stats(0.0, 2.5, 0.5, 2.5), std::nullopt},
                 {"fc2", 2, stats(noFinite, noFinite, noFinite, noFinite, 3, 1), std::nullopt}};
    r.frames = {before, at};
    return r;
}

MainWindowOptions windowOptions(const QString& runs) {
    MainWindowOptions o;
    o.persistSettings = false;
    o.runsRoot = runs;
    return o;
}

// A small run that flushes: a linear-ish model on tiny_gradients in emulated fp16 without
// a loss scaler, probed every step.
RunConfig tinyGradientsFp16(int64_t steps) {
    RunConfig c;
    c.name = "tiny-fp16";
    c.seed = 1;
    c.threads = 1;
    c.device = "cpu";
    c.data.dataset = "tiny_gradients";
    c.data.synthetic_samples = 512;
    c.data.validation = "split";
    c.data.val_fraction = 0.25;
    c.model.name = "mlp";
    c.model.hidden = {8};
    c.precision.mode = "fp16";
    c.precision.scaler.kind = "off";
    c.optim.lr = 0.01;
    c.train.epochs = 100;  // max_steps ends it (12 steps an epoch)
    c.train.max_steps = steps;
    c.train.batch_size = 32;
    c.probes.every = 1;
    return c;
}

}  // namespace

class GuiProbeViewsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void histogramHeatmapHoldsTheCountsOfEachStepAndBin() {
        OneRunSet viewFeed;
        GradientHistogramView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(runInfo({"fc1", "act1", "out"}));
        viewFeed.appendSteps({stepWithScale(1, 65536.0), stepWithScale(2, 65536.0)});
        viewFeed.takeHistogram(histogram(1, "fc1", probe_kind::kParamGrad, {{-30, 7}, {-10, 3}}, 2, 1));
        viewFeed.takeHistogram(histogram(2, "fc1", probe_kind::kParamGrad, {{-20, 5}}, 0, 0, 4));
        viewFeed.takeHistogram(histogram(1, "out", probe_kind::kParamGrad, {{-40, 9}}));
        viewFeed.endOfBatch();

        QCOMPARE(view.layerChooser()->count(), 3);  // every layer of run_info
        QCOMPARE(view.layer(), QString("fc1"));     // the first with this kind of data
        QCOMPARE(view.kind(), QString("param_grad"));
        HeatmapPlot* map = view.heatmap();
        QCOMPARE(map->rowCount(), 97 + 4);
        QCOMPARE(map->columnCount(), 2);
        QCOMPARE(map->stepOfColumn(0), int64_t(1));
        QCOMPARE(map->stepOfColumn(1), int64_t(2));
        QCOMPARE_BITS(map->value(0, binRow(-30)), 7.0);
        QCOMPARE_BITS(map->value(0, binRow(-10)), 3.0);
        QCOMPARE_BITS(map->value(0, binRow(-20)), 0.0);
        QCOMPARE_BITS(map->value(1, binRow(-20)), 5.0);
        QCOMPARE_BITS(map->value(0, 97), 2.0);   // zero
        QCOMPARE_BITS(map->value(0, 98), 1.0);   // NaN
        QCOMPARE_BITS(map->value(1, 99), 4.0);   // +Inf
        QCOMPARE_BITS(map->value(1, 100), 0.0);  // -Inf

        // Another layer: the map is rebuilt from what was kept.
        view.setLayer("out");
        QCOMPARE(map->columnCount(), 1);
        QCOMPARE_BITS(map->value(0, binRow(-40)), 9.0);
        // A layer without parameter gradients: an empty map that says why.
        view.setLayer("act1");
        QCOMPARE(map->columnCount(), 0);
        QVERIFY(!view.slice()->hasSlice());

        // Later records append to the layer shown.
        view.setLayer("fc1");
        viewFeed.appendSteps({stepWithScale(3, 65536.0)});
        viewFeed.takeHistogram(histogram(3, "fc1", probe_kind::kParamGrad, {{-5, 11}}));
        viewFeed.endOfBatch();
        QCOMPARE(map->columnCount(), 3);
        QCOMPARE_BITS(map->value(2, binRow(-5)), 11.0);
    }

    void histogramBandsAndScaledLimitsFollowTheScale() {
        OneRunSet viewFeed;
        GradientHistogramView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.appendSteps({stepWithScale(1, 65536.0)});
        viewFeed.takeHistogram(histogram(1, "fc1", probe_kind::kParamGrad, {{-30, 7}}));
        viewFeed.takeHistogram(histogram(1, "fc1", probe_kind::kParamGradScaled, {{-14, 7}}));
        viewFeed.endOfBatch();

        // fp16 as round-to-nearest decides: |g| <= 2^-25 flushes, subnormal below 2^-14,
        // overflow from 2^16; the map's value rows end at 2^33.
        const std::vector<std::pair<double, double>> bands = {
            {-64.0, -25.0}, {-25.0, -14.0}, {16.0, 33.0}};
        QCOMPARE(view.bandYs(), bands);
        // Unscaled gradients at scale 2^16: the limits sit 16 lower.
        QCOMPARE(view.scaledLimitYs(), (std::vector<double>{-41.0, -30.0, 0.0}));
        QCOMPARE(view.slice()->scaledLimitXs(), (std::vector<double>{-41.0, -30.0, 0.0}));

        // A backoff halves the scale: the lines move up by one.
        viewFeed.appendSteps({stepWithScale(2, 32768.0)});
        viewFeed.takeHistogram(histogram(2, "fc1", probe_kind::kParamGrad, {{-29, 7}}));
        viewFeed.endOfBatch();
        QCOMPARE(view.scaledLimitYs(), (std::vector<double>{-40.0, -29.0, 1.0}));
        QCOMPARE(view.bandYs(), bands);  // the bands stay where fp16 is
        // The slice follows the newest step and uses its scale.
        QCOMPARE(view.selectedStep(), std::optional<int64_t>(2));
        QCOMPARE(view.slice()->scaledLimitXs(), (std::vector<double>{-40.0, -29.0, 1.0}));
        // An older step keeps the scale it ran at.
        view.selectStep(1);
        QCOMPARE(view.slice()->step(), int64_t(1));
        QCOMPARE_BITS(view.slice()->barValue(-30), 7.0);
        QCOMPARE(view.slice()->scaledLimitXs(), (std::vector<double>{-41.0, -30.0, 0.0}));

        // Scaled gradients are what fp16 holds: bands only, no shifted lines.
        view.setKind("param_grad_scaled");
        QVERIFY(view.scaledLimitYs().empty());
        QVERIFY(view.slice()->scaledLimitXs().empty());
        QCOMPARE_BITS(view.slice()->barValue(-14), 7.0);
    }

    void histogramLinesAreLeftOutAtScaleOne() {
        OneRunSet viewFeed;
        GradientHistogramView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.appendSteps({stepWithScale(1, 1.0)});
        viewFeed.takeHistogram(histogram(1, "out", probe_kind::kParamGrad, {{-27, 3}}));
        viewFeed.endOfBatch();
        QVERIFY(view.scaledLimitYs().empty());
        QVERIFY(view.slice()->scaledLimitXs().empty());
        QCOMPARE_BITS(view.slice()->barValue(-27), 3.0);
        QVERIFY(view.slice()->titleText().contains("step 1"));
    }

    void histogramSliceFollowsTheSliderAndClicks() {
        OneRunSet viewFeed;
        GradientHistogramView view(&viewFeed.set);
        view.resize(900, 400);
        viewFeed.beginRun(contextFor(probedConfig()));
        for (int64_t step = 1; step <= 3; ++step) {
            viewFeed.appendSteps({stepWithScale(step, 1.0)});
            viewFeed.takeHistogram(histogram(step, "fc1", probe_kind::kParamGrad,
                                      {{-10 - static_cast<int>(step), 1}}));
        }
        viewFeed.endOfBatch();
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.stepSlider()->maximum(), 2);
        QCOMPARE(view.selectedStep(), std::optional<int64_t>(3));
        QVERIFY(view.followsNewestStep());

        view.stepSlider()->setValue(0);
        QCOMPARE(view.selectedStep(), std::optional<int64_t>(1));
        QCOMPARE_BITS(view.slice()->barValue(-11), 1.0);
        QVERIFY(!view.followsNewestStep());
        // A new step does not move a slice the user chose.
        viewFeed.appendSteps({stepWithScale(4, 1.0)});
        viewFeed.takeHistogram(histogram(4, "fc1", probe_kind::kParamGrad, {{-14, 1}}));
        viewFeed.endOfBatch();
        QCOMPARE(view.selectedStep(), std::optional<int64_t>(1));

        // A click on the second column picks step 2.
        HeatmapPlot* map = view.heatmap();
        map->replot();
        const QRect area = map->xAxis->axisRect()->rect();  // the map, not the named rows
        const QPoint at(static_cast<int>(map->xAxis->coordToPixel(map->columnX(1))), area.center().y());
        QTest::mouseClick(map, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(view.selectedStep(), std::optional<int64_t>(2));
        QCOMPARE_BITS(view.slice()->barValue(-12), 1.0);
        // Back at the right end, it follows again.
        view.stepSlider()->setValue(view.stepSlider()->maximum());
        QVERIFY(view.followsNewestStep());
        QCOMPARE(view.selectedStep(), std::optional<int64_t>(4));
    }

    // In a dock a few hundred pixels high: the map spans the run's steps, and the line
    // plot's y label fits beside its axis instead of running into the legend above it.
    void underflowViewReadsInAShortDock() {
        OneRunSet viewFeed;
        UnderflowView view(&viewFeed.set);
        view.resize(640, 260);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(runInfo({"fc1", "act1", "out"}));
        for (int64_t step : {1, 50, 100}) {
            viewFeed.takeUnderflow(underflow(step, "fc1", 25, 0, 75));
            viewFeed.takeUnderflow(underflow(step, "out", 1, 0, 997, 2));
        }
        std::vector<StepMetrics> steps;
        for (int64_t s = 1; s <= 120; ++s) steps.push_back(stepWithScale(s, 1.0));
        viewFeed.appendSteps(steps);
        viewFeed.endOfBatch();
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.heatmap()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(view.heatmap()->xAxis->range().upper >= 120.0);
        QCOMPARE(view.heatmap()->columnAt(100.0), 2);

        auto* plot = view.linePlot();
        QVERIFY(plot->isLogarithmic());
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QRect axisRect = plot->axisRect()->rect();
        const int labelLength = QFontMetrics(plot->yAxis->labelFont()).horizontalAdvance(plot->yAxis->label());
        // The label is drawn rotated, centred on the axis: its top is here.
        const int labelTop = axisRect.center().y() - labelLength / 2;
        QVERIFY2(labelLength <= axisRect.height(), qPrintable(plot->yAxis->label()));
        QVERIFY2(labelTop >= plot->legend->outerRect().bottom(),
                 qPrintable(QStringLiteral("label top %1, legend bottom %2")
                                .arg(labelTop)
                                .arg(plot->legend->outerRect().bottom())));
        // Taller, the whole label is back.
        plot->resize(plot->width(), 600);
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY2(plot->yAxis->label().contains("log axis"), qPrintable(plot->yAxis->label()));
    }

    void underflowMapHoldsEachLayersFraction() {
        OneRunSet viewFeed;
        UnderflowView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(runInfo({"fc1", "act1", "out"}));
        viewFeed.takeUnderflow(underflow(1, "fc1", 25, 0, 75));
        viewFeed.takeUnderflow(underflow(1, "fc1", 100, 0, 0, 0, 2.0));  // "what if": not shown
        viewFeed.takeUnderflow(underflow(1, "out", 0, 10, 90));
        viewFeed.takeUnderflow(underflow(2, "fc1", 50, 0, 50));
        viewFeed.takeUnderflow(underflow(2, "out", 1, 0, 997, 2));
        viewFeed.endOfBatch();

        QCOMPARE(view.rowLayers(), (QStringList{"fc1", "out"}));  // layers with counts
        QCOMPARE(view.heatmap()->columnCount(), 2);
        QCOMPARE_BITS(view.cell("fc1", 0), 0.25);
        QCOMPARE_BITS(view.cell("out", 0), 0.0);
        QCOMPARE_BITS(view.cell("fc1", 1), 0.5);
        QCOMPARE_BITS(view.cell("out", 1), 0.001);
        // The map draws the first layer on top: its row is the last one.
        QCOMPARE_BITS(view.heatmap()->value(0, 1), 0.25);
        // Lines: 0.5 down to 0.001 spans more than two decades: log axis.
        QCOMPARE(view.linePlot()->graphOf(0)->dataCount(), 2);
        QVERIFY(view.linePlot()->isLogarithmic());

        view.setFraction(UnderflowView::Fraction::Subnormal);
        QCOMPARE_BITS(view.cell("out", 0), 0.1);
        QCOMPARE_BITS(view.cell("fc1", 0), 0.0);
        QVERIFY(!view.linePlot()->isLogarithmic());
        view.setFraction(UnderflowView::Fraction::Overflow);
        QCOMPARE_BITS(view.cell("out", 1), 0.002);

        // A step is drawn once every layer has reported it.
        view.setFraction(UnderflowView::Fraction::Flushed);
        viewFeed.takeUnderflow(underflow(3, "fc1", 3, 0, 1));
        viewFeed.endOfBatch();
        QCOMPARE(view.heatmap()->columnCount(), 2);
        viewFeed.takeUnderflow(underflow(3, "out", 0, 0, 4));
        viewFeed.endOfBatch();
        QCOMPARE(view.heatmap()->columnCount(), 3);
        QCOMPARE_BITS(view.cell("fc1", 2), 0.75);

        // Unchecking a layer hides its line and legend entry.
        view.setLayerChecked("out", false);
        QVERIFY(!view.linePlot()->isLayerShown(1));
        QVERIFY(!view.linePlot()->graphOf(1)->visible());
        QVERIFY(view.linePlot()->isLayerShown(0));
    }

    // Runs compared: the line plot overlays every shown run's layers, each run in its
    // colour (the focused run first), each layer in its own dash pattern in both runs;
    // a run that goes on adds points to its own lines only; unchecking a layer hides it
    // in every run.
    void underflowLinesOverlayTheComparedRuns() {
        OneRunSet feed;
        UnderflowView view(&feed.set);
        RunModel* first = feed.addRun(contextFor(probedConfig()));
        feed.takeRecord(runInfo({"fc1", "out"}));
        feed.takeUnderflow(underflow(1, "fc1", 25, 0, 75));
        feed.takeUnderflow(underflow(1, "out", 10, 0, 90));
        feed.endOfBatch();
        QCOMPARE(view.linePlot()->lineCount(), 2);

        RunModel* second = feed.addRun(contextFor(probedConfig()));
        feed.takeRecord(runInfo({"fc1", "out"}));
        feed.takeUnderflow(underflow(1, "fc1", 1, 0, 999));
        feed.takeUnderflow(underflow(1, "out", 2, 0, 998));
        feed.endOfBatch();
        UnderflowFractionPlot* plot = view.linePlot();
        QCOMPARE(plot->lineCount(), 4);  // 2 runs x 2 layers, the focused run's first
        QCOMPARE(plot->lineGraph(0)->name(), second->name() + QStringLiteral(": fc1"));
        QCOMPARE(plot->lineGraph(2)->name(), first->name() + QStringLiteral(": fc1"));
        QCOMPARE(plot->lineGraph(0)->pen().color(), second->colour());
        QCOMPARE(plot->lineGraph(3)->pen().color(), first->colour());
        QVERIFY(first->colour() != second->colour());
        QCOMPARE(plot->lineGraph(0)->pen().style(), plot->lineGraph(2)->pen().style());
        QVERIFY(plot->lineGraph(0)->pen().style() != plot->lineGraph(1)->pen().style());
        QCOMPARE_BITS(plot->lineGraph(0)->data()->at(0)->value, 0.001);
        QCOMPARE_BITS(plot->lineGraph(2)->data()->at(0)->value, 0.25);
        QCOMPARE_BITS(plot->lineGraph(3)->data()->at(0)->value, 0.1);

        // The focused run goes on: its lines grow, the other run's do not.
        feed.takeUnderflow(underflow(2, "fc1", 5, 0, 995));
        feed.takeUnderflow(underflow(2, "out", 0, 0, 1000));
        feed.endOfBatch();
        QCOMPARE(plot->lineGraph(0)->dataCount(), 2);
        QCOMPARE(plot->lineGraph(2)->dataCount(), 1);

        view.setLayerChecked("out", false);
        QVERIFY(!plot->lineGraph(1)->visible() && !plot->lineGraph(3)->visible());
        QVERIFY(plot->lineGraph(0)->visible() && plot->lineGraph(2)->visible());

        // Back to one run: one line per layer again.
        feed.set.removeRun(first->id());
        QCOMPARE(plot->lineCount(), 2);
        QCOMPARE(plot->lineGraph(0)->name(), QStringLiteral("fc1"));
    }

    // Runs compared: their maps side by side (the focused run first) on one log2|g| axis
    // and one colour scale, so that a run whose gradients sit 16 binades lower is seen
    // at a glance: each map alone would colour its own extremes.
    void comparedHistogramsShareOneAxisAndOneColourScale() {
        OneRunSet feed;
        GradientHistogramView view(&feed.set);
        view.resize(1200, 500);
        const auto kind = probe_kind::kParamGradScaled;
        RunContext context = contextFor(probedConfig());
        context.title = QStringLiteral("dynamic-scaler");
        RunModel* scaled = feed.addRun(context);
        feed.takeRecord(runInfo({"out"}));
        feed.takeHistogram(histogram(1, "out", kind, {{-10, 1000}}));
        feed.endOfBatch();
        context.title = QStringLiteral("no-scaler");
        RunModel* unscaled = feed.addRun(context);
        feed.takeRecord(runInfo({"out"}));
        feed.takeHistogram(histogram(1, "out", kind, {{-26, 40}}));
        feed.endOfBatch();
        view.setKind(QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size())));
        view.setLayer(QStringLiteral("out"));

        QCOMPARE(view.paneCount(), 2);
        QCOMPARE(view.pane(0)->run(), unscaled);
        QCOMPARE(view.pane(1)->run(), scaled);
        HeatmapPlot* mine = view.pane(0)->heatmap();
        HeatmapPlot* theirs = view.pane(1)->heatmap();
        QCOMPARE(mine->columnCount(), 1);
        QCOMPARE(theirs->columnCount(), 1);
        QCOMPARE_BITS(mine->value(0, -26 + 64), 40.0);
        QCOMPARE_BITS(theirs->value(0, -10 + 64), 1000.0);
        // One y range holding both runs' bins ([-26, -25) and [-10, -9)).
        const QCPRange y = mine->yAxis->range();
        QCOMPARE_BITS(theirs->yAxis->range().lower, y.lower);
        QCOMPARE_BITS(theirs->yAxis->range().upper, y.upper);
        QVERIFY2(y.lower <= -26.0 && y.upper >= -9.0, qPrintable(QStringLiteral("%1 .. %2").arg(y.lower).arg(y.upper)));
        // One colour scale: from the smaller run's 40 to the larger's 1000, in both maps.
        QCOMPARE_BITS(mine->colorScale()->dataRange().lower, 40.0);
        QCOMPARE_BITS(mine->colorScale()->dataRange().upper, 1000.0);
        QCOMPARE_BITS(theirs->colorScale()->dataRange().lower, 40.0);
        QCOMPARE_BITS(theirs->colorScale()->dataRange().upper, 1000.0);
    }

    // A long run's probe records: the view keeps at most its bound of them per layer and
    // kind, the heatmap at most its capacity of columns, and the NaN step stays in view.
    void histogramViewKeepsBoundedRecordsAndTheNaNStep() {
        OneRunSet viewFeed;
        GradientHistogramView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(runInfo({"fc1"}));
        const auto kind = probe_kind::kParamGradScaled;
        for (int64_t step = 1; step <= 20000; ++step) {
            viewFeed.takeHistogram(
                histogram(step, "fc1", kind, {{-3, 10 + step % 7}}, 0, step == 13331 ? 5 : 0));
            if (step % 1000 == 0) viewFeed.endOfBatch();  // as ticks would
        }
        viewFeed.endOfBatch();
        view.setKind(QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size())));
        view.setLayer("fc1");
        viewFeed.endOfBatch();
        const int kept = view.stepSlider()->maximum() + 1;
        QVERIFY2(kept <= static_cast<int>(HistogramSeries::kMaxKeptProbeSteps),
                 qPrintable(QString::number(kept)));
        QVERIFY(kept >= static_cast<int>(HistogramSeries::kMaxKeptProbeSteps / 2));
        QVERIFY(view.heatmap()->columnCount() <= view.heatmap()->heatmapLayout().capacity);
        // The step with NaN was kept (of its pair, the one with more NaN) and is drawn.
        view.selectStep(13331);
        QCOMPARE(view.selectedStep(), std::optional<int64_t>(13331));
        QCOMPARE(view.slice()->step(), int64_t{13331});
        QVERIFY2(view.slice()->titleText().contains(QStringLiteral("NaN 5")),
                 qPrintable(view.slice()->titleText()));
        const int nanRow = kExponentBins + 1;
        double nanMass = 0.0;
        for (int c = 0; c < view.heatmap()->columnCount(); ++c)
            nanMass += view.heatmap()->value(c, nanRow);
        QVERIFY(nanMass > 0.0);
        QCOMPARE(view.heatmap()->stepOfColumn(view.heatmap()->columnCount() - 1), int64_t{20000});
    }

    void underflowViewKeepsBoundedStepsAndTheWorstOne() {
        OneRunSet viewFeed;
        UnderflowView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(runInfo({"fc1", "out"}));
        for (int64_t step = 1; step <= 10000; ++step) {
            viewFeed.takeUnderflow(underflow(step, "fc1", 1, 0, 99, step == 7777 ? 50 : 0));
            viewFeed.takeUnderflow(underflow(step, "out", 2, 0, 98));
            if (step % 500 == 0) viewFeed.endOfBatch();
        }
        viewFeed.endOfBatch();
        QVERIFY(view.heatmap()->columnCount() <= view.heatmap()->heatmapLayout().capacity);
        QVERIFY(view.linePlot()->graphOf(0)->dataCount() <=
                static_cast<int>(UnderflowSeries::kMaxKeptProbeSteps) + 2);
        view.setFraction(UnderflowView::Fraction::Overflow);
        double highest = 0.0;
        const auto* graph = view.linePlot()->graphOf(0);
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            if (std::isfinite(it->value)) highest = std::max(highest, it->value);
        QCOMPARE_BITS(highest, 50.0 / 150.0);  // step 7777's overflow survived the thinning
    }

    // Both probe docks say on their map why it is empty, and say nothing once it is not.
    void probeDocksSayWhyTheirMapIsEmpty() {
        RunConfig off = probedConfig();
        off.probes.every = 0;
        OneRunSet histogramsFeed;
        GradientHistogramView histograms(&histogramsFeed.set);
        histogramsFeed.beginRun(contextFor(off));
        histogramsFeed.endOfBatch();
        QVERIFY2(histograms.heatmap()->placeholderText().contains("Probes are off"),
                 qPrintable(histograms.heatmap()->placeholderText()));
        OneRunSet underflowFeed;
        UnderflowView underflow(&underflowFeed.set);
        underflowFeed.beginRun(contextFor(off));
        underflowFeed.endOfBatch();
        QVERIFY2(underflow.heatmap()->placeholderText().contains("Probes are off"),
                 qPrintable(underflow.heatmap()->placeholderText()));

        histogramsFeed.beginRun(contextFor(probedConfig()));
        histogramsFeed.endOfBatch();
        QVERIFY(histograms.heatmap()->placeholderText().contains("No histograms yet"));
        histogramsFeed.takeHistogram(histogram(1, "fc1", probe_kind::kParamGrad, {{-10, 5}}));
        histogramsFeed.endOfBatch();
        QVERIFY2(histograms.heatmap()->placeholderText().isEmpty(),
                 qPrintable(histograms.heatmap()->placeholderText()));
    }

    void updatesDockShowsEachRunsLostUpdatesAndRatios() {
        auto record = [](int64_t step, const char* layer, double ratio, int64_t intended, int64_t lost) {
            UpdateRatioRecord r;
            r.step = step;
            r.ratio.layer = layer;
            r.ratio.ratio = ratio;
            r.ratio.numel = 100;
            r.ratio.intendedNonZero = intended;
            r.ratio.lost = lost;
            return toJson(r);
        };
        OneRunSet feed;
        UpdatesView view(&feed.set);
        UpdatesPlot* plot = view.plot();
        feed.beginRun(contextFor(probedConfig()));
        feed.takeRecord(record(1, "fc1", 1e-3, 80, 60));
        feed.takeRecord(record(1, "fc2", 2e-5, 40, 0));
        feed.takeRecord(record(5, "fc1", 4e-3, 50, 10));
        feed.endOfBatch();
        // Lost updates (the default): lost / intended per layer and probe step.
        QCOMPARE(plot->measure(), UpdatesPlot::Measure::LostUpdates);
        QCPGraph* fc1 = plot->graphOf(0, QStringLiteral("fc1"));
        QVERIFY(fc1);
        QCOMPARE(fc1->dataCount(), 2);
        QCOMPARE_BITS(fc1->data()->at(0)->key, 1.0);
        QCOMPARE_BITS(fc1->data()->at(0)->value, 0.75);
        QCOMPARE_BITS(fc1->data()->at(1)->value, 0.2);
        QCOMPARE_BITS(plot->graphOf(0, QStringLiteral("fc2"))->data()->at(0)->value, 0.0);
        QCOMPARE_BITS(plot->yAxis->range().upper, 1.05);

        // The update ratio, on a log axis.
        view.measureChooser()->setCurrentIndex(1);
        QCOMPARE(plot->measure(), UpdatesPlot::Measure::UpdateRatio);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE_BITS(plot->graphOf(0, QStringLiteral("fc1"))->data()->at(1)->value, 4e-3);
        QCOMPARE_BITS(plot->graphOf(0, QStringLiteral("fc2"))->data()->at(0)->value, 2e-5);

        // A second run, compared: it is focused (shown first), in its own colour; the
        // first run's lines stay.
        RunModel* second = feed.addRun(contextFor(probedConfig()));
        feed.takeRecord(record(1, "fc1", 5e-4, -1, -1));
        feed.endOfBatch();
        QCPGraph* mine = plot->graphOf(0, QStringLiteral("fc1"));
        QCPGraph* theirs = plot->graphOf(1, QStringLiteral("fc1"));
        QVERIFY(mine && theirs);
        QCOMPARE_BITS(mine->data()->at(0)->value, 5e-4);
        QCOMPARE(theirs->dataCount(), 2);
        QCOMPARE(mine->pen().color(), second->colour());
        QVERIFY(theirs->pen().color() != mine->pen().color());

        // Lost updates: the second run measured none, the first still shows its own.
        view.measureChooser()->setCurrentIndex(0);
        QCOMPARE(plot->graphOf(0, QStringLiteral("fc1"))->dataCount(), 0);
        QCOMPARE_BITS(plot->graphOf(1, QStringLiteral("fc1"))->data()->at(0)->value, 0.75);
    }

    void nanInspectorSaysWhenThereIsNoEvent() {
        OneRunSet viewFeed;
        NanInspectorView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        QVERIFY(!view.hasEvent());
        QVERIFY(view.headerText().contains("No non-finite value so far"));
        QVERIFY(!view.rerunButton()->isEnabled());
        QCOMPARE(view.table()->rowCount(), 0);

        RunConfig off = probedConfig();
        off.probes.locate_nonfinite = "off";
        viewFeed.beginRun(contextFor(off));
        QVERIFY(view.headerText().contains("locator is off"));
        RunConfig always = probedConfig();
        always.probes.locate_nonfinite = "always";
        viewFeed.beginRun(contextFor(always));
        QVERIFY(view.headerText().contains("checked each step"));
    }

    void nanInspectorSaysHowTheEventWasFound() {
        OneRunSet viewFeed;
        NanInspectorView view(&viewFeed.set);
        viewFeed.beginRun(contextFor(probedConfig()));
        QVERIFY(view.headerText().contains("run again with every layer"));
        viewFeed.takeRecord(runInfo({"fc1", "act1", "fc2", "out"}));
        NonFiniteRecord record = fc2ActivationEvent();
        record.event.locatedBy = std::string(nonfinite_located_by::kReplay);
        viewFeed.takeRecord(toJson(record));
        viewFeed.endOfBatch();
        QVERIFY2(view.headerText().contains("Found by running step 5 again"), qPrintable(view.headerText()));
        QVERIFY(!view.headerText().contains("did not reproduce"));

        // A replay that missed: the checks of every later step found it.
        OneRunSet missedFeed;
        NanInspectorView missed(&missedFeed.set);
        missedFeed.beginRun(contextFor(probedConfig()));
        record.event.locatedBy = std::string(nonfinite_located_by::kCheck);
        record.event.replayMissedStep = 3;
        missedFeed.takeRecord(toJson(record));
        missedFeed.endOfBatch();
        QVERIFY(missed.headerText().contains("A replay of step 3 did not reproduce"));
        QVERIFY(!missed.headerText().contains("Found by running"));
    }

    void nanInspectorShowsTheEventTheFramesAndTheCulprit() {
        OneRunSet viewFeed;
        NanInspectorView view(&viewFeed.set);
        QSignalSpy found(&view, &NanInspectorView::nonFiniteFound);
        QSignalSpy rerun(&view, &NanInspectorView::rerunWithLayerInFp32);
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(runInfo({"fc1", "act1", "fc2", "out"}));
        viewFeed.takeRecord(toJson(fc2ActivationEvent()));
        viewFeed.endOfBatch();

        QVERIFY(view.hasEvent());
        QCOMPARE(found.count(), 1);
        QCOMPARE(view.culpritLayer(), QString("fc2"));
        const QString header = view.headerText();
        QVERIFY2(header.contains("step <b>5</b>"), qPrintable(header));
        QVERIFY(header.contains("<b>fc2</b>"));
        QVERIFY(header.contains("forward pass"));
        QVERIFY(header.contains("3 NaN, 1 +Inf"));
        QVERIFY(header.contains("of 64 elements"));

        QTableWidget* table = view.table();
        QCOMPARE(table->columnCount(), 2);
        QCOMPARE(table->horizontalHeaderItem(0)->text(), QString("step 4"));
        QVERIFY(table->horizontalHeaderItem(1)->text().startsWith("step 5"));
        // 4 layers x 2 tensors x 5 statistics; no loss stats in these frames.
        QCOMPARE(table->rowCount(), 40);
        const int fc1Max = view.table()->rowOf("fc1", "activation", "max");
        QCOMPARE(table->verticalHeaderItem(fc1Max)->text(),
                 QString("fc1 \u00B7 activation \u00B7 max"));
        QCOMPARE(table->item(fc1Max, 0)->text(), QString("2"));
        QCOMPARE(table->item(fc1Max, 1)->text(), QString("2.5"));
        QCOMPARE(table->item(view.table()->rowOf("fc1", "activation", "mean"), 1)->text(), QString("0.25"));
        QCOMPARE(table->item(view.table()->rowOf("fc1", "gradient", "min"), 0)->text(), QString("-0.25"));
        // The culprit's cells at the event step: no finite element, counts, strong tint.
        const int fc2Counts = view.table()->rowOf("fc2", "activation", "NaN/Inf");
        const int fc2Max = view.table()->rowOf("fc2", "activation", "max");
        QCOMPARE(table->item(fc2Counts, 1)->text(), QString("3 NaN, 1 +Inf"));
        QCOMPARE(table->item(fc2Max, 1)->text(), QString("\u2014"));
        QCOMPARE(table->item(fc2Counts, 1)->background().color(), StatsFramesTable::culpritTint());
        QCOMPARE(table->item(fc2Max, 1)->background().color(), StatsFramesTable::culpritTint());
        QCOMPARE(table->item(fc2Counts, 0)->text(), QString("0"));
        // One step before: 70000 is beyond fp16's 65504.
        QCOMPARE(table->item(fc2Max, 0)->text(), QString("70000"));
        QCOMPARE(table->item(fc2Max, 0)->background().color(), StatsFramesTable::fp16RangeTint());
        QVERIFY2(table->item(fc2Max, 0)->toolTip().contains("largest finite value 65504"),
                 qPrintable(table->item(fc2Max, 0)->toolTip()));
        QCOMPARE(table->item(fc1Max, 0)->background().style(), Qt::NoBrush);
        // No gradient reached the layers at the event step (forward stopped there).
        QVERIFY(table->item(view.table()->rowOf("fc1", "gradient", "min"), 1)->text().isEmpty());

        // The layer list, culprit highlighted and selected.
        QListWidget* layers = view.layerList();
        QCOMPARE(layers->count(), 5);  // four layers, then the loss
        QListWidgetItem* culprit = layers->item(2);
        QCOMPARE(culprit->data(Qt::UserRole).toString(), QString("fc2"));
        QCOMPARE(culprit->background().color(), StatsFramesTable::culpritTint());
        QVERIFY(culprit->font().bold());
        QCOMPARE(layers->currentItem(), culprit);
        QVERIFY(!layers->item(0)->font().bold());

        // Only the first event of a run counts.
        NonFiniteRecord later = fc2ActivationEvent();
        later.event.step = 9;
        later.event.layer = "out";
        viewFeed.takeRecord(toJson(later));
        viewFeed.endOfBatch();
        QCOMPARE(view.culpritLayer(), QString("fc2"));
        QCOMPARE(found.count(), 1);

        QVERIFY(view.rerunButton()->isEnabled());
        QCOMPARE(view.rerunButton()->text(), QString("Rerun with fc2 kept in fp32"));
        QTest::mouseClick(view.rerunButton(), Qt::LeftButton);
        QCOMPARE(rerun.count(), 1);
        QCOMPARE(rerun.at(0).at(0).toString(), QString("fc2"));
    }

    // Per run: the chooser lists every run of the set with its first non-finite step;
    // choosing a run focuses it in the set (every view follows) and the inspector shows
    // that run's event; a run without one says so.
    void nanInspectorShowsTheChosenRunsEvent() {
        OneRunSet feed;
        NanInspectorView view(&feed.set);
        RunContext context = contextFor(probedConfig());
        context.title = QStringLiteral("manual-softmax");
        RunModel* broken = feed.addRun(context);
        feed.takeRecord(runInfo({"fc1", "act1", "fc2", "out"}));
        feed.takeRecord(toJson(fc2ActivationEvent()));
        feed.endOfBatch();
        context.title = QStringLiteral("library-softmax");
        RunModel* clean = feed.addRun(context);
        feed.takeRecord(runInfo({"fc1", "act1", "fc2", "out"}));
        feed.endOfBatch();

        QComboBox* chooser = view.runChooser();
        QCOMPARE(chooser->count(), 2);
        QVERIFY(chooser->isEnabled());
        QCOMPARE(chooser->itemText(0), QStringLiteral("manual-softmax \u00B7 non-finite at step 5"));
        QCOMPARE(chooser->itemText(1), QStringLiteral("library-softmax \u00B7 no non-finite value"));
        QCOMPARE(feed.set.focused(), clean);
        QCOMPARE(chooser->currentIndex(), 1);
        QVERIFY(!view.hasEvent());
        QVERIFY(view.headerText().contains("No non-finite value so far"));

        chooser->setCurrentIndex(0);
        QCOMPARE(feed.set.focused(), broken);
        QVERIFY(view.hasEvent());
        QCOMPARE(view.culpritLayer(), QStringLiteral("fc2"));
        QVERIFY2(view.headerText().contains("step <b>5</b>"), qPrintable(view.headerText()));
        QCOMPARE(view.table()->columnCount(), 2);

        // Focusing elsewhere (the run list, a narrative link) moves the chooser too.
        feed.set.focus(clean->id());
        QCOMPARE(chooser->currentIndex(), 1);
        QVERIFY(!view.hasEvent());
    }

    void nanInspectorButtonIsOffForTheLossAndForAKeptLayer() {
        OneRunSet viewFeed;
        NanInspectorView view(&viewFeed.set);
        RunConfig kept = probedConfig();
        kept.precision.keep_fp32 = {"fc2"};
        viewFeed.beginRun(contextFor(kept));
        viewFeed.takeRecord(toJson(fc2ActivationEvent()));
        viewFeed.endOfBatch();
        QVERIFY(!view.rerunButton()->isEnabled());
        QVERIFY(view.rerunButton()->text().contains("already kept in fp32"));

        NonFiniteRecord loss = fc2ActivationEvent();
        loss.event.layer = "loss";
        loss.event.layerIndex = -1;
        loss.event.tensor = "loss";
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(toJson(loss));
        viewFeed.endOfBatch();
        QVERIFY(view.headerText().contains("the <b>loss</b>"));
        QVERIFY(!view.rerunButton()->isEnabled());

        // A run recorded from a PyTorch script: the fix is the script's, not a rerun.
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord({{"type", "run_info"}, {"source", "pytorch_recorder"}, {"layers", {"fc1", "fc2"}}});
        viewFeed.takeRecord(toJson(fc2ActivationEvent()));
        viewFeed.endOfBatch();
        QVERIFY(!view.rerunButton()->isEnabled());
        QCOMPARE(view.rerunButton()->text(), QString("Keep fc2 in fp32 in your script"));
        // The next run, trained by the lab, can be rerun again.
        viewFeed.beginRun(contextFor(probedConfig()));
        viewFeed.takeRecord(toJson(fc2ActivationEvent()));
        viewFeed.endOfBatch();
        QVERIFY(view.rerunButton()->isEnabled());
    }

    // The memory record through its codec (probes/StepAuditRecords.h): one that does not
    // read (a field of the wrong type, fields missing) adds no point and is counted.
    void memoryPlotReadsWhatTheRecordHas() {
        const MemoryRecord first{1, {104857600, 209715200, std::nullopt, {{"float32", 1048576}, {"float16", 524288}}, {}}};
        const MemoryRecord second{2, {104857600, 314572800, std::nullopt, {}, {}}};
        const nlohmann::json full = toJson(first);
        nlohmann::json broken = toJson(second);
        broken["rss_bytes"] = "oops";
        const nlohmann::json partial = {{"type", "memory"}, {"step", 3}, {"peak_rss_bytes", 314572800}};

        OneRunSet plotFeed;

        MemoryPlot plot(&plotFeed.set);
        plot.resize(600, 300);  // the markers are for points with room between them
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plotFeed.beginRun(contextFor(probedConfig()));
        plotFeed.takeRecord(full);
        plotFeed.takeRecord(broken);
        plotFeed.takeRecord(partial);
        plotFeed.takeRecord(toJson(second));
        plotFeed.endOfBatch();
        QCOMPARE(plotFeed.run->memory().malformedRecords(), int64_t{2});
        QCOMPARE(plot.rssGraph()->dataCount(), 2);
        QCOMPARE_BITS(plot.rssGraph()->data()->at(0)->value, 100.0);  // MiB
        QCOMPARE(plot.peakRssGraph()->dataCount(), 2);
        QCOMPARE_BITS(plot.peakRssGraph()->data()->at(1)->value, 300.0);
        QCOMPARE(plot.cudaPeakGraph()->dataCount(), 0);
        // Two records are two points with space between: each is marked (a lone record
        // would be no line at all).
        QCOMPARE(plot.rssGraph()->scatterStyle().shape(), QCPScatterStyle::ssDisc);
        QCOMPARE(plot.peakRssGraph()->scatterStyle().shape(), QCPScatterStyle::ssCircle);
        QVERIFY(!plot.legend->hasItemWithPlottable(plot.cudaPeakGraph()));
        QVERIFY(plot.legend->hasItemWithPlottable(plot.rssGraph()));
        QVERIFY(plot.activationGraph("float16"));
        QCOMPARE_BITS(plot.activationGraph("float16")->data()->at(0)->value, 0.5);
        QCOMPARE(plot.yAxis->label(), QString("memory (MiB)"));
        const QString tip = plot.hoverText(1.0, QPoint());
        QVERIFY2(tip.contains("process RSS: 100 MiB"), qPrintable(tip));

        // A new run starts empty.
        plotFeed.beginRun(contextFor(probedConfig()));
        QCOMPARE(plot.rssGraph()->dataCount(), 0);
        QVERIFY(!plot.activationGraph("float16"));
    }

    void aRecordedRunFillsTheProbeDocks() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("tiny-fp16").toStdString();
        constexpr int64_t kSteps = 6;
        {
            Engine engine(tinyGradientsFp16(kSteps), runDir);
            engine.start();
            engine.wait();
            QCOMPARE(QString::fromStdString(engine.summary().status), QString("finished"));
        }
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        QString error;
        QVERIFY2(window.openRun(QString::fromStdString(runDir), &error),
                 qPrintable(error));
        QCOMPARE(window.stepsShown(), qint64(kSteps));

        GradientHistogramView* histograms = window.views().histograms;
        QStringList layers;
        for (int i = 0; i < histograms->layerChooser()->count(); ++i)
            layers << histograms->layerChooser()->itemText(i);
        QCOMPARE(layers, (QStringList{"fc1", "act1", "out"}));  // run_info's list
        QCOMPARE(histograms->layer(), QString("fc1"));
        QCOMPARE(histograms->heatmap()->columnCount(), int(kSteps));  // probed every step
        QVERIFY(histograms->slice()->hasSlice());
        QCOMPARE(histograms->slice()->step(), kSteps);

        // The views show what events.jsonl holds: fc1's first probe step, recounted here.
        QFile events(QString::fromStdString(runDir) + "/events.jsonl");
        QVERIFY(events.open(QIODevice::ReadOnly));
        std::optional<HistogramRecord> fc1Histogram;
        std::optional<UnderflowRecord> fc1Classes;
        while (!events.atEnd()) {
            const auto record = nlohmann::json::parse(events.readLine().toStdString());
            if (record.value("step", 0) != 1 || record.value("layer", "") != "fc1") continue;
            if (record["type"] == "histogram" && record["kind"] == "param_grad")
                fc1Histogram = histogramRecordFromJson(record);
            if (record["type"] == "underflow" && record["kind"] == "param_grad_scaled" &&
                record.value("multiplier", 1.0) == 1.0)
                fc1Classes = underflowRecordFromJson(record);
        }
        QVERIFY(fc1Histogram && fc1Classes);
        for (int k = kMinExponent + 1; k < kMaxExponent; ++k)
            QCOMPARE_BITS(histograms->heatmap()->value(0, binRow(k)),
                     double(fc1Histogram->histogram.countAt(k)));
        QCOMPARE_BITS(histograms->heatmap()->value(0, 97), double(fc1Histogram->histogram.zero));

        // tiny_gradients' targets are tiny: in fp16 without a scaler most of fc1's weight
        // gradients are subnormal and some flush to 0.
        UnderflowView* underflow = window.views().underflow;
        QCOMPARE(underflow->rowLayers(), (QStringList{"fc1", "out"}));
        QCOMPARE(underflow->heatmap()->columnCount(), int(kSteps));
        const Fp16ClassCounts& counts = fc1Classes->counts;
        QVERIFY(counts.flushed > 0);
        QCOMPARE_BITS(underflow->cell("fc1", 0), double(counts.flushed) / double(counts.total()));
        underflow->setFraction(UnderflowView::Fraction::Subnormal);
        QCOMPARE_BITS(underflow->cell("fc1", 0), double(counts.subnormal) / double(counts.total()));
        QVERIFY(underflow->cell("fc1", 0) > 0.5);

        QVERIFY(!window.views().nanInspector->hasEvent());
        QVERIFY(window.views().nanInspector->headerText().contains("No non-finite value so far"));
    }

    void aLiveRunFillsTheProbeDocksAndTheRerunKeepsTheLayerInFp32() {
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        RunConfig config = tinyGradientsFp16(40);
        config.faults = {FaultConfig{3, "nan_activation", "fc1", 1.0}};
        window.setConfig(config);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QVERIFY(window.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        QCOMPARE(ended.at(0).at(0).toString(), QString("finished"));  // a NaN is a result
        const QString firstRun = window.runDirectory();

        // The engine's records reached the views live.
        QCOMPARE(window.views().histograms->heatmap()->columnCount(), 40);
        QCOMPARE(window.views().underflow->heatmap()->columnCount(), 40);
        NanInspectorView* inspector = window.views().nanInspector;
        QVERIFY(inspector->hasEvent());
        QCOMPARE(inspector->culpritLayer(), QString("fc1"));
        QVERIFY(inspector->headerText().contains("step <b>3</b>"));
        auto* nanDock = window.findChild<QDockWidget*>("nanInspectorDock");
        QVERIFY(nanDock);

        QVERIFY(inspector->rerunButton()->isEnabled());
        QTest::mouseClick(inspector->rerunButton(), Qt::LeftButton);
        QVERIFY(window.runControl()->bridge()->isActive());
        QVERIFY(window.runDirectory() != firstRun);
        const auto keep = window.configPanel()->config().precision.keep_fp32;
        QCOMPARE(keep, (std::vector<std::string>{"fc1"}));
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 60000);
        // The new run recorded the layer in its config.
        QFile saved(window.runDirectory() + "/config.json");
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(saved.readAll().toStdString());
        QCOMPARE(json["precision"]["keep_fp32"], nlohmann::json::array({"fc1"}));
    }

    void rerunDuringARunStopsItFirst() {
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        RunConfig config = tinyGradientsFp16(0);
        config.train.epochs = 500;  // long: it is stopped by the rerun
        window.setConfig(config);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QVERIFY(window.startRun());
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > 3, 30000);
        const QString firstRun = window.runDirectory();
        window.rerunKeepingLayerInFp32("out");
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000);
        QCOMPARE(ended.at(0).at(0).toString(), QString("stopped"));
        QTRY_VERIFY_WITH_TIMEOUT(window.runControl()->bridge()->isActive(), 10000);
        QVERIFY(window.runDirectory() != firstRun);
        QCOMPARE(window.configPanel()->config().precision.keep_fp32,
                 (std::vector<std::string>{"out"}));
        window.stopRun();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 30000);
    }
};

QTEST_MAIN(GuiProbeViewsTest)
#include "test_gui_probe_views.moc"
