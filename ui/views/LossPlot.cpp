#include "views/LossPlot.h"

#include <QAction>
#include <QMenu>
#include <algorithm>
#include <cmath>

#include "plots/SeedBandGraphs.h"
#include "runset/RunPalette.h"
#include "runset/RunSeedGroups.h"
#include "runset/RunSet.h"
#include "stats/SeedBand.h"

namespace ampscope::ui {

namespace {

// The marks' hidden axis: y = 0 (skipped) sits 3% above the bottom, y = 1 (non-finite
// loss) 3% below the top.
constexpr double kRugMargin = 0.03;

const QColor kSkippedColour(230, 130, 0);
const QColor kNonFiniteColour(200, 0, 0);

// A band's fill stays faint enough for the seeds' lines on it to read.
constexpr int kBandFillAlpha = 45;
constexpr int kBandEdgeAlpha = 110;

}  // namespace

LossPlot::LossPlot(RunSet* set, QWidget* parent) : RunSetTimePlot(set, RunChange::Steps, parent) {
    setObjectName(QStringLiteral("loss"));
    yAxis->setLabel(tr("training loss"));
    yAxis2->setLabel(tr("validation accuracy (%)"));
    yAxis2->setTickLabels(true);

    markerAxis_ = axisRect()->addAxis(QCPAxis::atRight);
    markerAxis_->setVisible(false);
    const double span = 1.0 / (1.0 - 2.0 * kRugMargin);
    markerAxis_->setRange(-kRugMargin * span, 1.0 + kRugMargin * span);

    logAction_ = new QAction(tr("Logarithmic loss axis"), this);
    logAction_->setCheckable(true);
    connect(logAction_, &QAction::triggered, this, &LossPlot::setLogarithmic);
    rebuild();
}

LossPlot::~LossPlot() = default;

QCPGraph* LossPlot::rawLossGraph() const {
    return lines_.empty() ? nullptr : lines_.front().raw->graph();
}

QCPGraph* LossPlot::smoothedLossGraph() const {
    return lines_.empty() ? nullptr : lines_.front().smoothed->graph();
}

QCPGraph* LossPlot::validationLossGraph() const {
    return lines_.empty() ? nullptr : lines_.front().valLoss->graph();
}

QCPGraph* LossPlot::validationAccuracyGraph() const {
    return lines_.empty() ? nullptr : lines_.front().valAccuracy->graph();
}

QCPGraph* LossPlot::runGraph(int index) const {
    if (index < 0 || index >= static_cast<int>(lines_.size())) return nullptr;
    return lines_[static_cast<std::size_t>(index)].smoothed->graph();
}

const SeedBandGraphs* LossPlot::bandAt(int index) const {
    if (index < 0 || index >= seedBandCount()) return nullptr;
    return bands_[static_cast<std::size_t>(index)].get();
}

QCPGraph* LossPlot::seedBandGraph(int index) const {
    const SeedBandGraphs* band = bandAt(index);
    return band ? band->high()->graph() : nullptr;
}

QCPGraph* LossPlot::seedBandLowGraph(int index) const {
    const SeedBandGraphs* band = bandAt(index);
    return band ? band->low()->graph() : nullptr;
}

QCPGraph* LossPlot::seedBandCentreGraph(int index) const {
    const SeedBandGraphs* band = bandAt(index);
    return band ? band->centre()->graph() : nullptr;
}

bool LossPlot::bandHolds(std::size_t band, RunId run) const {
    const std::vector<RunId>& runs = bandRuns_[band];
    return std::find(runs.begin(), runs.end(), run) != runs.end();
}

bool LossPlot::isSeedOfBand(RunId run) const {
    for (std::size_t band = 0; band < bandRuns_.size(); ++band)
        if (bandHolds(band, run)) return true;
    return false;
}

// Made before any run's graphs, so the bands are drawn first: behind the runs.
void LossPlot::addSeedBands() {
    bands_.clear();
    bandRuns_.clear();
    bandNames_.clear();
    for (const RunSeedGroup& group : shownSeedGroups(*runSet())) {
        const QColor colour = group.runs.front()->colour();
        QColor edge = colour;
        edge.setAlpha(kBandEdgeAlpha);
        QColor fill = colour;
        fill.setAlpha(kBandFillAlpha);
        const int seeds = static_cast<int>(group.runs.size());
        SeriesGraph* low = addSeries(yAxis, tr("%1: seed band, low edge").arg(group.name), QPen(edge, 1.0));
        SeriesGraph* high = addSeries(yAxis, SeedBandGraphs::legendName(group.name, seeds), QPen(edge, 1.0));
        high->graph()->setBrush(fill);
        SeriesGraph* centre = addSeries(yAxis, tr("%1: seed mean").arg(group.name), QPen(colour, 2.0, Qt::DashLine));
        std::vector<const DecimatedSeries*> smoothed;
        for (const RunModel* run : group.runs) smoothed.push_back(&run->steps().smoothedLoss());
        bands_.push_back(std::make_unique<SeedBandGraphs>(low, high, centre, std::move(smoothed)));
        bandRuns_.push_back(group.ids());
        bandNames_.push_back(group.name);
    }
}

void LossPlot::runChanged(RunId run, RunChanges what) {
    if (what & RunChange::Identity) {
        // A run's config or name arrived or changed: the seeds may group differently.
        std::vector<std::vector<RunId>> groups;
        for (const RunSeedGroup& group : shownSeedGroups(*runSet())) groups.push_back(group.ids());
        if (groups != bandRuns_) {
            rebuild();
            return;
        }
    }
    if (what & RunChange::Steps)
        for (std::size_t band = 0; band < bands_.size(); ++band)
            if (bandHolds(band, run)) bands_[band]->refill();
}

void LossPlot::addRunGraphs(const RunModel& run, bool focused, bool several) {
    const StepSeries& s = run.steps();
    const QColor colour = run.colour();
    if (focused) {
        lines_.clear();
        skipped_ = nonFinite_ = nullptr;
        addSeedBands();
        yAxis->setLabel(s.classification() ? tr("training loss (cross-entropy, nats)")
                                           : tr("training loss (mean squared error)"));
    }
    RunLines lines;
    lines.raw = addSeries(yAxis, lineName(run, several, tr("train loss")),
                          QPen(run_palette::faint(colour, several ? 70 : 110), 1.0), s.loss());
    lines.smoothed = addSeries(yAxis,
                               several ? runLabel(run) : tr("train loss, EMA %1").arg(StepSeries::kSmoothing),
                               QPen(colour, 2.0), s.smoothedLoss());
    const bool seed = isSeedOfBand(run.id());
    if (seed) {  // its band names it in the legend; its own line thin on the band
        lines.smoothed->graph()->setPen(QPen(colour, 1.0));
        lines.smoothed->graph()->removeFromLegend();
    }
    lines.valLoss = addSeries(yAxis, lineName(run, several, tr("val loss")), QPen(colour, 1.5, Qt::DashLine),
                              s.validationLoss());
    lines.valLoss->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    lines.valAccuracy = addSeries(yAxis2, lineName(run, several, tr("val accuracy (%)")),
                                  QPen(colour, 1.5, Qt::DotLine), s.validationAccuracyPercent());
    lines.valAccuracy->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 7));
    if (several) lines.raw->graph()->removeFromLegend();
    lines_.push_back(lines);
    if (!focused) return;
    skipped_ = addSeries(markerAxis_, tr("skipped step"), QPen(kSkippedColour), s.skippedSteps());
    skipped_->graph()->setLineStyle(QCPGraph::lsNone);
    skipped_->graph()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangle, kSkippedColour, kSkippedColour, 6));
    nonFinite_ = addSeries(markerAxis_, tr("loss NaN/Inf"), QPen(kNonFiniteColour), s.nonFiniteLosses());
    nonFinite_->graph()->setLineStyle(QCPGraph::lsNone);
    nonFinite_->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, 7));
}

void LossPlot::afterRebuild() {
    if (shownRuns().empty()) {
        lines_.clear();
        bands_.clear();
        bandRuns_.clear();
        bandNames_.clear();
    }
    for (auto& band : bands_) band->refill();
    const bool wasChosen = !autoLog_;
    autoLog_ = true;  // other runs: the axis follows their data again
    if (wasChosen) Q_EMIT logarithmicChanged(logarithmic_);
    updateLegend();
}

// Lines join the legend once they have data: an empty "val loss" entry says nothing.
void LossPlot::updateLegend() {
    bool accuracy = false;
    const auto show = [this](SeriesGraph* s, bool on) {
        if (!s) return;
        const bool in = legend->hasItemWithPlottable(s->graph());
        if (on && !in) s->graph()->addToLegend();
        if (!on && in) s->graph()->removeFromLegend();
    };
    // Several runs: the legend names each run once (its EMA line); the rest is in its colour.
    const bool several = lines_.size() > 1;
    for (const RunLines& l : lines_) {
        show(l.valLoss, !several && !l.valLoss->series().empty());
        show(l.valAccuracy, !several && !l.valAccuracy->series().empty());
        accuracy = accuracy || l.valAccuracy->series().hasFiniteY();
    }
    show(skipped_, skipped_ && !skipped_->series().empty());
    show(nonFinite_, nonFinite_ && !nonFinite_->series().empty());
    yAxis2->setVisible(accuracy);
}

QString LossPlot::emptyText() const {
    for (const RunModel* run : shownRuns())
        if (!run->steps().loss().empty() || !run->steps().validationLoss().empty()) return QString();
    return tr("Waiting for the first step…");
}

void LossPlot::setLogarithmic(bool logarithmic) {
    autoLog_ = false;
    applyLogarithmic(logarithmic);
}

void LossPlot::setAutoLogarithmic() {
    autoLog_ = true;
    resetView();
}

void LossPlot::applyLogarithmic(bool logarithmic) {
    logAction_->setChecked(logarithmic);
    if (logarithmic == logarithmic_) return;
    logarithmic_ = logarithmic;
    setAxisLogarithmic(yAxis, logarithmic);
    if (!autoLog_) resetView();
    Q_EMIT logarithmicChanged(logarithmic);
}

void LossPlot::applyAutoRanges() {
    updateLegend();
    double lastStep = 0.0, low = INFINITY, high = -INFINITY, lowPositive = INFINITY;
    for (const RunModel* run : shownRuns()) {
        for (const DecimatedSeries* s : {&run->steps().loss(), &run->steps().validationLoss()}) {
            if (!s->empty()) lastStep = std::max(lastStep, s->lastX());
            if (!s->hasFiniteY()) continue;
            low = std::min(low, s->minY());
            high = std::max(high, s->maxY());
            if (s->hasPositiveY()) lowPositive = std::min(lowPositive, s->minPositiveY());
        }
    }
    // A band with few seeds is wide (t(0.975, 2) = 4.3): its edges stay on the plot.
    for (const auto& band : bands_) {
        for (const SeriesGraph* edge : {band->low(), band->high()}) {
            const DecimatedSeries& e = edge->series();
            if (!e.hasFiniteY()) continue;
            low = std::min(low, e.minY());
            high = std::max(high, e.maxY());
            if (e.hasPositiveY()) lowPositive = std::min(lowPositive, e.minPositiveY());
        }
    }
    setXRangeToData(lastStep);
    if (autoLog_) {
        const bool spread = std::isfinite(lowPositive) && high > 0.0 &&
                            std::log10(high / lowPositive) > kAutoLogDecades;
        if (spread != logarithmic_) applyLogarithmic(spread);
    }
    if (logarithmic_ && std::isfinite(lowPositive)) low = lowPositive;
    if (std::isfinite(low) && std::isfinite(high))
        yAxis->setRange(paddedRange(low, high, logarithmic_));
    else
        yAxis->setRange(logarithmic_ ? QCPRange(0.1, 10.0) : QCPRange(0.0, 1.0));

    double accLow = INFINITY, accHigh = -INFINITY;
    for (const RunModel* run : shownRuns()) {
        const DecimatedSeries& accuracy = run->steps().validationAccuracyPercent();
        if (!accuracy.hasFiniteY()) continue;
        accLow = std::min(accLow, accuracy.minY());
        accHigh = std::max(accHigh, accuracy.maxY());
    }
    if (std::isfinite(accLow)) {
        const QCPRange r = paddedRange(accLow, accHigh, false);
        yAxis2->setRange(std::max(0.0, r.lower), std::min(100.0, r.upper));
    }
}

std::vector<RunSetTimePlot::BandQuantity> LossPlot::bandQuantities() const {
    return {{yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.steps().smoothedLoss(); }, tr("smoothed train loss"), true, Qt::SolidLine}};
}

void LossPlot::addContextActions(QMenu& menu) {
    menu.addAction(logAction_);
}

QString LossPlot::hoverText(double step, QPoint pixel) const {
    if (shownRuns().empty()) return QString();
    const RunModel& focused = *shownRuns().front();
    // An epoch point near the mouse (within 8 px) wins over the step under it.
    for (const EpochMetrics& e : focused.steps().epochs()) {
        if (std::abs(xAxis->coordToPixel(static_cast<double>(e.step)) - pixel.x()) <= 8.0) {
            QString text = tr("%1: epoch %2 ended at step %3\nval loss %4")
                               .arg(focused.name())
                               .arg(e.epoch)
                               .arg(e.step)
                               .arg(formatValue(e.valLoss));
            if (std::isfinite(e.valAccuracy))
                text += tr("\nval accuracy %1 %").arg(formatValue(100.0 * e.valAccuracy));
            text += tr("\nepoch mean train loss %1").arg(formatValue(e.trainLoss));
            return text;
        }
    }
    QString text;
    for (const RunModel* run : shownRuns()) {
        const DecimatedSeries& loss = run->steps().loss();
        if (loss.empty() || !isDrawn(*run)) continue;
        const std::size_t i = loss.nearestIndex(step);
        if (text.isEmpty()) text = tr("step %1").arg(static_cast<qint64>(loss.x(i)));
        text += tr("\n%1: train loss %2, smoothed %3")
                    .arg(run->name(), formatValue(loss.y(i)),
                         formatValue(run->steps().smoothedLoss().yNear(loss.x(i))));
        const DecimatedSeries& skipped = run->steps().skippedSteps();
        const std::size_t k = skipped.lowerIndex(loss.x(i));
        if (k < skipped.size() && skipped.x(k) == loss.x(i))
            text += tr(" (optimizer step skipped: non-finite gradient)");
    }
    for (int b = 0; b < seedBandCount(); ++b) {
        const SeedBandGraphs& band = *bands_[static_cast<std::size_t>(b)];
        const DecimatedSeries& centre = band.centre()->series();
        if (centre.empty()) continue;
        const std::size_t i = centre.nearestIndex(step);
        text += tr("\n%1: seed band %2 to %3, mean %4 at step %6 (%5 seeds)")
                    .arg(bandNames_[static_cast<std::size_t>(b)], formatValue(band.low()->series().y(i)),
                         formatValue(band.high()->series().y(i)), formatValue(centre.y(i)))
                    .arg(band.seedCount())
                    .arg(static_cast<qint64>(centre.x(i)));
    }
    if (!bands_.empty()) text += tr("\nseed band: %1").arg(QString::fromLatin1(stats::kSeedBandRule));
    return text + bandHoverText(step);
}

}  // namespace ampscope::ui
