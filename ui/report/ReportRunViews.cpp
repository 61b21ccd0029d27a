#include "report/ReportRunViews.h"

#include <QWidget>
#include <algorithm>

#include "plots/HeatmapPlot.h"
#include "probes/ProbeRecords.h"
#include "runset/RunSet.h"
#include "views/GradientHistogramView.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "views/UnderflowView.h"

namespace ampscope::ui {
namespace {

QString kindName(std::string_view kind) {
    return QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()));
}

}  // namespace

ReportRunViews::ReportRunViews(RunSet& set) : set_(set), host_(std::make_unique<QWidget>()) {
    host_->setAttribute(Qt::WA_DontShowOnScreen);
    loss_ = new LossPlot(&set_, host_.get());
    scale_ = new ScalePlot(&set_, host_.get());
    histograms_ = new GradientHistogramView(&set_, host_.get());
    underflow_ = new UnderflowView(&set_, host_.get());
}

ReportRunViews::~ReportRunViews() = default;

void ReportRunViews::show(RunId id, const ReportRun& run) {
    for (const RunModel* other : set_.runs()) set_.setCompared(other->id(), other->id() == id);
    set_.focus(id);
    const RunModel* model = set_.run(id);

    // Which layers have histograms of the two parameter-gradient kinds.
    const HistogramSeries& histograms = model->histograms();
    hasHistograms_ = !histograms.empty();
    scaledLayers_.clear();
    unscaledLayers_.clear();
    for (const QString& layer : histograms.layers().names()) {
        if (histograms.series(kindName(probe_kind::kParamGradScaled), layer)) scaledLayers_ << layer;
        if (histograms.series(kindName(probe_kind::kParamGrad), layer)) unscaledLayers_ << layer;
    }

    // How much of each layer's scaled gradients fp16 lost, on average over the probe steps.
    lossByLayer_.clear();
    hasUnderflow_ = anyFlushed_ = false;
    if (const UnderflowSeries::KindData* counts = model->underflow().data(kindName(probe_kind::kParamGradScaled))) {
        std::map<QString, std::pair<double, int>> lost;  // layer -> (sum of fractions, steps)
        for (std::size_t i = 0; i < counts->size(); ++i)
            for (const auto& [layer, c] : counts->entry(i)) {
                hasUnderflow_ = true;
                anyFlushed_ = anyFlushed_ || c.flushed > 0;
                auto& [sum, n] = lost[layer];
                sum += c.flushedFraction() + c.subnormalFraction() + c.overflowFraction();
                ++n;
            }
        for (const auto& [layer, sumCount] : lost)
            if (sumCount.second > 0 && sumCount.first > 0)
                lossByLayer_.emplace_back(layer, sumCount.first / sumCount.second);
        std::stable_sort(lossByLayer_.begin(), lossByLayer_.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
    }
    culprit_.clear();
    if (run.nonFinite && run.nonFinite->event.layer != "loss")
        culprit_ = QString::fromStdString(run.nonFinite->event.layer);
}

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
    histograms_->setKind(kindName(scaled ? probe_kind::kParamGradScaled : probe_kind::kParamGrad));
    histograms_->setLayer(layer);
    return true;
}

QString ReportRunViews::histogramKindText() const {
    return GradientHistogramView::kindText(histograms_->kind());
}

}  // namespace ampscope::ui
