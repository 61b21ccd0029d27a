#include "report/ReportSetViews.h"

#include <QWidget>
#include <cmath>

#include "plots/HeatmapPlot.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "probes/ProbeRecords.h"
#include "report/ReportOverlayPlot.h"
#include "runset/RunBands.h"
#include "runset/RunSet.h"
#include "stats/ManyRuns.h"
#include "views/GradientHistogramView.h"
#include "views/HistogramMapPane.h"

namespace ampscope::ui {
namespace {

// Positive values spanning more than this many decades put the flushed fraction on a
// log axis (the Underflow dock's rule): 40% beside 0.01% is then still seen.
constexpr double kLogDecades = 2.0;

using Points = std::vector<std::pair<double, double>>;

// The runs' lines of an overlay, a band of many (RunBands.h) as its median and 10% and 90%
// quantiles (three lines, named once each) and only its outliers and `focused` as lines of
// their own, as the window's per-step plots draw it.
void addLines(ReportOverlayPlot* plot, const RunSet& set, const std::vector<RunId>& ids,
              const std::vector<Points>& lines, bool markers) {
    const std::vector<RunBand> bands = shownRunBands(set);
    const RunId focused = set.focusedId();
    for (const RunBand& band : bands) {
        std::vector<std::vector<double>> steps, values;
        for (std::size_t r = 0; r < ids.size(); ++r) {
            if (!band.contains(ids[r])) continue;
            std::vector<double>& x = steps.emplace_back();
            std::vector<double>& y = values.emplace_back();
            for (const auto& [step, value] : lines[r]) x.push_back(step), y.push_back(value);
        }
        std::vector<stats::MemberSeries> members;
        for (std::size_t m = 0; m < steps.size(); ++m) members.push_back({steps[m].data(), values[m].data(), steps[m].size()});
        Points low, median, high;
        for (const stats::QuantileBandPoint& p : stats::quantileBandSeries(members)) {
            low.emplace_back(static_cast<double>(p.step), p.low);
            median.emplace_back(static_cast<double>(p.step), p.median);
            high.emplace_back(static_cast<double>(p.step), p.high);
        }
        const QColor colour = band.members.front()->colour();
        QColor edge = colour;
        edge.setAlpha(140);
        const QString of = QStringLiteral("%1 %2").arg(band.members.size()).arg(band.memberNoun());
        plot->addLine(QStringLiteral("%1: median of %2").arg(band.name, of), colour, median, markers);
        plot->addLine(QStringLiteral("%1: 10% quantile").arg(band.name), edge, low, false);
        plot->addLine(QStringLiteral("%1: 90% quantile").arg(band.name), edge, high, false);
    }
    for (std::size_t r = 0; r < ids.size(); ++r) {
        const RunModel* run = set.run(ids[r]);
        QString name = run->name();
        bool hidden = false;
        for (const RunBand& band : bands) {
            if (!band.contains(ids[r])) continue;
            const BandOutlier* outlier = band.outlier(ids[r]);
            hidden = !outlier && ids[r] != focused;
            if (outlier) name += QStringLiteral(" (%1)").arg(outlier->why);
        }
        if (!hidden) plot->addLine(name, run->colour(), lines[r], markers);
    }
}

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
    // The runs were fed after the views were made, with no event loop since: a band of many
    // is derived now, not at its next coalesced refresh.
    loss_->refreshBands();
    scale_->refreshBands();
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
    if (logarithmic)  // a fraction of 0 has no place on a log axis: a gap
        for (auto& points : lines)
            for (auto& point : points)
                if (point.second <= 0.0) point.second = std::nan("");
    addLines(plot, set_, ids_, lines, false);
    plot->setLogarithmic(logarithmic);
    plot->fit();
}

void ReportSetViews::drawAccuracy() {
    auto* plot = new ReportOverlayPlot(QStringLiteral("training step (end of epoch)"),
                                       QStringLiteral("validation accuracy (%)"), host_.get());
    accuracy_ = plot;
    std::vector<Points> lines;
    for (RunId id : ids_) {
        Points& points = lines.emplace_back();
        for (const EpochMetrics& epoch : set_.run(id)->steps().epochs())
            if (std::isfinite(epoch.valAccuracy))
                points.emplace_back(static_cast<double>(epoch.step), 100.0 * epoch.valAccuracy);
        hasAccuracy_ = hasAccuracy_ || !points.empty();
    }
    addLines(plot, set_, ids_, lines, true);
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
