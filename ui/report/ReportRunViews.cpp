#include "report/ReportRunViews.h"

#include <QWidget>
#include <algorithm>
#include <map>

#include "config/ConfigJson.h"
#include "plots/HeatmapPlot.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "report/RunReplay.h"
#include "runset/RunSet.h"
#include "views/GradientHistogramView.h"
#include "views/UnderflowView.h"
#include "probes/ProbeRecords.h"

namespace ampscope::ui {

// Which layers have histograms, and how much of each layer's scaled gradients fp16 lost.
class ReportRunViews::LayerScan : public RunObserver {
public:
    explicit LayerScan(ReportRunViews& views) : views_(views) {}
    void beginRun(const RunContext&) override {}
    void appendSteps(const std::vector<StepMetrics>&) override {}
    void endOfBatch() override {}
    void takeHistogram(const HistogramRecord& h) override {
        views_.hasHistograms_ = true;
        const QString layer = QString::fromStdString(h.layer);
        if (h.kind == probe_kind::kParamGradScaled && !views_.scaledLayers_.contains(layer))
            views_.scaledLayers_ << layer;
        if (h.kind == probe_kind::kParamGrad && !views_.unscaledLayers_.contains(layer))
            views_.unscaledLayers_ << layer;
    }
    void takeUnderflow(const UnderflowRecord& u) override {
        if (u.kind != probe_kind::kParamGradScaled || u.multiplier != 1.0) return;
        views_.hasUnderflow_ = true;
        views_.anyFlushed_ = views_.anyFlushed_ || u.counts.flushed > 0;
        auto& [sum, n] = lost[QString::fromStdString(u.layer)];
        sum += u.counts.flushedFraction() + u.counts.subnormalFraction() + u.counts.overflowFraction();
        ++n;
    }
    std::map<QString, std::pair<double, int>> lost;  // layer -> (sum of fractions, records)

private:
    ReportRunViews& views_;
};

RunContext reportRunContext(const ReportRun& run) {
    RunContext context;
    try {
        context.config = configFromJson(run.config);
    } catch (const std::exception&) {
        // A config this build does not load: the views fall back to defaults (e.g. the
        // scale plot's scaler kind); the records still draw.
    }
    context.title = run.title;
    context.runDirectory = run.directory;
    context.live = false;
    return context;
}

ReportRunViews::ReportRunViews(const ReportRun& run)
    : set_(std::make_unique<RunSet>()), host_(std::make_unique<QWidget>()) {
    host_->setAttribute(Qt::WA_DontShowOnScreen);
    loss_ = new LossPlot(set_.get(), host_.get());
    scale_ = new ScalePlot(set_.get(), host_.get());
    histograms_ = new GradientHistogramView(set_.get(), host_.get());
    underflow_ = new UnderflowView(set_.get(), host_.get());

    const RunContext context = reportRunContext(run);
    // Streamed from the run directory: the views and this scan keep only what they show.
    LayerScan scan(*this);
    replayRunDirectory(context, run.directory.toStdString(), {set_->addRun(context), &scan});
    for (const auto& [layer, sumCount] : scan.lost)
        if (sumCount.second > 0 && sumCount.first > 0)
            lossByLayer_.emplace_back(layer, sumCount.first / sumCount.second);
    std::stable_sort(lossByLayer_.begin(), lossByLayer_.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (run.nonFinite && run.nonFinite->event.layer != "loss")
        culprit_ = QString::fromStdString(run.nonFinite->event.layer);
}

ReportRunViews::~ReportRunViews() = default;

QCustomPlot* ReportRunViews::histogramHeatmap() const {
    return histograms_->heatmap();
}

QCustomPlot* ReportRunViews::underflowHeatmap() const {
    return underflow_->heatmap();
}

QStringList ReportRunViews::affectedLayers(int count) const {
    QStringList layers;
    if (!culprit_.isEmpty() &&
        (scaledLayers_.contains(culprit_) || unscaledLayers_.contains(culprit_)))
        layers << culprit_;
    for (const auto& [layer, fraction] : lossByLayer_)
        if (layers.size() < count && !layers.contains(layer)) layers << layer;
    return layers;
}

bool ReportRunViews::showHistogramOf(const QString& layer) {
    const bool scaled = scaledLayers_.contains(layer);
    if (!scaled && !unscaledLayers_.contains(layer)) return false;
    histograms_->setKind(QString::fromUtf8(scaled ? probe_kind::kParamGradScaled.data()
                                                  : probe_kind::kParamGrad.data()));
    histograms_->setLayer(layer);
    return true;
}

QString ReportRunViews::histogramKindText() const {
    return GradientHistogramView::kindText(histograms_->kind());
}

}  // namespace ampscope::ui
