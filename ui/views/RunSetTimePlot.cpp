#include "views/RunSetTimePlot.h"

#include <QElapsedTimer>
#include <algorithm>

#include "plots/QuantileBandGraphs.h"
#include "runset/RunSet.h"
#include "stats/ManyRuns.h"

namespace ampscope::ui {

namespace {

// The band's fill faint enough for the outliers' lines on it to read.
constexpr int kBandFillAlpha = 55;
constexpr int kBandEdgeAlpha = 120;

bool sameDrawings(const std::vector<RunBand>& a, const std::vector<RunBand>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!a[i].sameDrawing(b[i])) return false;
    return true;
}

}  // namespace

RunSetTimePlot::RunSetTimePlot(RunSet* set, RunChanges dataChanges, QWidget* parent)
    : TimeSeriesPlot(parent), set_(set), dataChanges_(dataChanges) {
    connect(set_, &RunSet::changed, this, &RunSetTimePlot::onChanged);
    bandTimer_.setSingleShot(true);
    connect(&bandTimer_, &QTimer::timeout, this, &RunSetTimePlot::refreshBands);
}

RunSetTimePlot::~RunSetTimePlot() = default;

QString RunSetTimePlot::lineName(const RunModel& run, bool several, const QString& what) {
    return several ? QStringLiteral("%1: %2").arg(run.name(), what) : what;
}

QString RunSetTimePlot::noProbeRecordsText(const QString& what) const {
    const bool live = std::any_of(shown_.begin(), shown_.end(), [](const RunModel* run) { return run->isLive(); });
    if (live) return tr("No %1 yet: the probes write them on probe steps").arg(what);
    // A run read from its folder brings no more: it ran without probe steps.
    return shown_.size() == 1 ? tr("No %1 in this run: the probes write them on probe steps").arg(what)
                              : tr("No %1 in these runs: the probes write them on probe steps").arg(what);
}

void RunSetTimePlot::onChanged(RunId run, RunChanges what) {
    if (what & kShownRunsChange) {
        rebuild();
        return;
    }
    runChanged(run, what);
    const bool inBand =
        std::any_of(bands_.begin(), bands_.end(), [run](const RunBand& band) { return band.contains(run); });
    if (inBand && (what & (dataChanges_ | RunChange::Identity))) scheduleBandRefresh();
    const RunModel* changed = set_->run(run);
    if (set_->isShown(run) && (what & dataChanges_) && (!changed || isDrawn(*changed))) {
        setPlaceholder(emptyText());
        redraw();
    }
}

void RunSetTimePlot::rebuild() {
    rebuildWith(bandQuantities().empty() ? std::vector<RunBand>{} : shownRunBands(*set_));
}

void RunSetTimePlot::rebuildWith(std::vector<RunBand> bands) {
    bandTimer_.stop();
    removeAllSeries();
    bandGraphs_.clear();
    shown_ = set_->shownRuns();
    bands_ = std::move(bands);
    const bool several = shown_.size() > 1;
    for (const RunBand& band : bands_) addBandGraphs(band);  // first: behind the runs
    for (const RunModel* run : shown_)
        if (isDrawn(*run)) addRunGraphs(*run, run == shown_.front(), several);
    afterRebuild();
    setPlaceholder(shown_.empty() ? tr("No run yet: press Start, or open a run (Ctrl+O)") : emptyText());
    resetView();
}

void RunSetTimePlot::addBandGraphs(const RunBand& band) {
    const QColor colour = band.members.front()->colour();
    QColor edge = colour;
    edge.setAlpha(kBandEdgeAlpha);
    QColor fill = colour;
    fill.setAlpha(kBandFillAlpha);
    std::vector<std::unique_ptr<QuantileBandGraphs>>& graphs = bandGraphs_.emplace_back();
    const std::vector<BandQuantity> quantities = bandQuantities();
    for (std::size_t q = 0; q < quantities.size(); ++q) {
        const BandQuantity& quantity = quantities[q];
        QString name = tr("%1: median %2 of %3 %4, 10-90% shaded")
                           .arg(band.name, quantity.what)
                           .arg(band.members.size())
                           .arg(band.memberNoun());
        if (q == 0 && band.moreOutliers > 0) name += tr(" (%n more outlier(s) not drawn)", "", band.moreOutliers);
        SeriesGraph* low = addSeries(quantity.axis, tr("%1: 10% quantile").arg(band.name), QPen(edge, 1.0, quantity.style));
        SeriesGraph* high = addSeries(quantity.axis, tr("%1: 90% quantile").arg(band.name), QPen(edge, 1.0, quantity.style));
        if (quantity.filled) high->graph()->setBrush(fill);
        SeriesGraph* median = addSeries(quantity.axis, name, QPen(colour, 2.0, quantity.style));
        std::vector<const DecimatedSeries*> members;
        members.reserve(band.members.size());
        for (const RunModel* run : band.members) members.push_back(&quantity.series(*run));
        graphs.push_back(std::make_unique<QuantileBandGraphs>(low, high, median, std::move(members), quantity.filled));
        graphs.back()->refill();
    }
}

void RunSetTimePlot::scheduleBandRefresh() {
    if (bandTimer_.isActive()) return;
    bandTimer_.start(static_cast<int>(std::max<qint64>(kBandRefreshMs, kBandRefreshCostFactor * lastRefreshMs_)));
}

void RunSetTimePlot::refreshBands() {
    bandTimer_.stop();
    if (bandQuantities().empty()) return;
    QElapsedTimer cost;
    cost.start();
    std::vector<RunBand> now = shownRunBands(*set_);
    if (!sameDrawings(now, bands_) || set_->shownRuns() != shown_) {
        rebuildWith(std::move(now));
    } else {
        for (auto& perBand : bandGraphs_)
            for (auto& graphs : perBand) graphs->refill();
        redraw();
    }
    lastRefreshMs_ = cost.elapsed();
}

bool RunSetTimePlot::isDrawn(const RunModel& run) const {
    if (!shown_.empty() && shown_.front() == &run) return true;
    for (const RunBand& band : bands_)
        if (band.contains(run.id())) return band.outlier(run.id()) != nullptr;
    return true;
}

int RunSetTimePlot::drawnRunCount() const {
    return static_cast<int>(std::count_if(shown_.begin(), shown_.end(), [this](const RunModel* r) { return isDrawn(*r); }));
}

QString RunSetTimePlot::runLabel(const RunModel& run) const {
    for (const RunBand& band : bands_)
        if (const BandOutlier* outlier = band.outlier(run.id()))
            return QStringLiteral("%1 (%2)").arg(run.name(), outlier->why);
    return run.name();
}

const QuantileBandGraphs* RunSetTimePlot::bandGraphs(int band, int quantity) const {
    if (band < 0 || band >= static_cast<int>(bandGraphs_.size())) return nullptr;
    const auto& perBand = bandGraphs_[static_cast<std::size_t>(band)];
    if (quantity < 0 || quantity >= static_cast<int>(perBand.size())) return nullptr;
    return perBand[static_cast<std::size_t>(quantity)].get();
}

QCPGraph* RunSetTimePlot::bandMedianGraph(int band, int quantity) const {
    const QuantileBandGraphs* g = bandGraphs(band, quantity);
    return g ? g->median()->graph() : nullptr;
}

QCPGraph* RunSetTimePlot::bandLowGraph(int band, int quantity) const {
    const QuantileBandGraphs* g = bandGraphs(band, quantity);
    return g ? g->low()->graph() : nullptr;
}

QCPGraph* RunSetTimePlot::bandHighGraph(int band, int quantity) const {
    const QuantileBandGraphs* g = bandGraphs(band, quantity);
    return g ? g->high()->graph() : nullptr;
}

QString RunSetTimePlot::bandHoverText(double step) const {
    QString text;
    const std::vector<BandQuantity> quantities = bandQuantities();
    for (std::size_t b = 0; b < bandGraphs_.size(); ++b)
        for (std::size_t q = 0; q < bandGraphs_[b].size() && q < quantities.size(); ++q) {
            const QuantileBandGraphs& g = *bandGraphs_[b][q];
            const DecimatedSeries& median = g.median()->series();
            if (median.empty()) continue;
            const std::size_t i = median.nearestIndex(step);
            text += tr("\n%1: median %2 %3 (10-90%: %4 to %5) at step %6, %7 %8")
                        .arg(bands_[b].name, quantities[q].what, formatValue(median.y(i)),
                             formatValue(g.low()->series().yNear(median.x(i))),
                             formatValue(g.high()->series().yNear(median.x(i))))
                        .arg(static_cast<qint64>(median.x(i)))
                        .arg(bands_[b].members.size())
                        .arg(bands_[b].memberNoun());
        }
    if (!text.isEmpty()) text += tr("\nband: %1").arg(QString::fromLatin1(stats::kManyRunsBandRule));
    return text;
}

}  // namespace ampscope::ui
