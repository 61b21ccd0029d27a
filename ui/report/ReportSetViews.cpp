#include "report/ReportSetViews.h"

#include <QWidget>
#include <cmath>

#include "plots/HeatmapPlot.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "probes/ProbeRecords.h"
#include "report/ReportOverlayPlot.h"
#include "runset/RunSet.h"
#include "views/GradientHistogramView.h"
#include "views/HistogramMapPane.h"

namespace ampscope::ui {
namespace {

// Positive values spanning more than this many decades put the flushed fraction on a
// log axis (the Underflow dock's rule): 40% beside 0.01% is then still seen.
constexpr double kLogDecades = 2.0;

}  // namespace

ReportSetViews::ReportSetViews(RunSet& set) : set_(set), host_(std::make_unique<QWidget>()) {
    host_->setAttribute(Qt::WA_DontShowOnScreen);
    loss_ = new LossPlot(&set_, host_.get());
    scale_ = new ScalePlot(&set_, host_.get());
    histograms_ = new GradientHistogramView(&set_, host_.get());
}

void ReportSetViews::show(const std::vector<RunId>& ids) {
    ids_ = ids;
    for (RunId id : ids_) set_.setCompared(id, true);
    if (!ids_.empty()) set_.focus(ids_.front());
    std::vector<HistogramTotals> totals;
    for (RunId id : ids_) totals.push_back(histogramTotals(set_.run(id)->histograms()));
    contrasts_ = rankContrasts(totals);
    if (contrasts_.size() > kShownContrasts) contrasts_.resize(kShownContrasts);
    drawFlushed();
    drawAccuracy();
}

ReportSetViews::~ReportSetViews() = default;

void ReportSetViews::drawFlushed() {
    auto* plot = new ReportOverlayPlot(QStringLiteral("training step"),
                                       QStringLiteral("% of elements flushed to 0"), host_.get());
    flushed_ = plot;
    const QString kind = QString::fromUtf8(probe_kind::kParamGradScaled.data());
    std::vector<std::vector<std::pair<double, double>>> lines;
    double low = 0.0, high = 0.0;
    for (RunId id : ids_) {
        std::vector<std::pair<double, double>>& points = lines.emplace_back();
        const UnderflowSeries::KindData* data = set_.run(id)->underflow().data(kind);
        if (!data) continue;
        for (std::size_t i = 0; i < data->size(); ++i) {
            Fp16ClassCounts all;
            for (const auto& [layer, counts] : data->entry(i)) all += counts;
            const double percent = 100.0 * all.flushedFraction();
            points.emplace_back(static_cast<double>(data->steps()[i]), percent);
            if (percent > 0.0) {
                low = low == 0.0 ? percent : std::min(low, percent);
                high = std::max(high, percent);
            }
            hasFlushed_ = true;
            anyFlushed_ = anyFlushed_ || all.flushed > 0;
        }
    }
    const bool logarithmic = low > 0.0 && std::log10(high / low) > kLogDecades;
    for (std::size_t r = 0; r < ids_.size(); ++r) {
        const RunModel* run = set_.run(ids_[r]);
        if (logarithmic)  // a fraction of 0 has no place on a log axis: a gap
            for (auto& point : lines[r])
                if (point.second <= 0.0) point.second = std::nan("");
        plot->addLine(run->name(), run->colour(), lines[r], false);
    }
    plot->setLogarithmic(logarithmic);
    plot->fit();
}

void ReportSetViews::drawAccuracy() {
    auto* plot = new ReportOverlayPlot(QStringLiteral("training step (end of epoch)"),
                                       QStringLiteral("validation accuracy (%)"), host_.get());
    accuracy_ = plot;
    for (RunId id : ids_) {
        const RunModel* run = set_.run(id);
        std::vector<std::pair<double, double>> points;
        for (const EpochMetrics& epoch : run->steps().epochs())
            if (std::isfinite(epoch.valAccuracy))
                points.emplace_back(static_cast<double>(epoch.step), 100.0 * epoch.valAccuracy);
        hasAccuracy_ = hasAccuracy_ || !points.empty();
        plot->addLine(run->name(), run->colour(), points, true);
    }
    plot->fit();
}

void ReportSetViews::showContrast(const HistogramContrast& contrast) {
    const RunId a = ids_[static_cast<std::size_t>(contrast.runA)];
    const RunId b = ids_[static_cast<std::size_t>(contrast.runB)];
    for (RunId id : ids_) set_.setCompared(id, id == a || id == b);
    set_.focus(a);
    histograms_->setKind(contrast.kind);
    histograms_->setLayer(contrast.layer);
}

std::vector<QCustomPlot*> ReportSetViews::histogramPanes() const {
    std::vector<QCustomPlot*> panes;
    for (int i = 0; i < histograms_->paneCount(); ++i) panes.push_back(histograms_->pane(i)->heatmap());
    return panes;
}

QString ReportSetViews::histogramKindText() const {
    return GradientHistogramView::kindText(histograms_->kind());
}

}  // namespace ampscope::ui
