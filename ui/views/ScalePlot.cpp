#include "views/ScalePlot.h"

#include <algorithm>
#include <cmath>

#include "runset/RunSet.h"

namespace ampscope::ui {

namespace {

QString powerOfTwo(double scale) {
    if (!std::isfinite(scale) || scale <= 0.0) return QString::number(scale);
    const double exponent = std::log2(scale);
    const QString value = QString::number(scale, 'g', 8);
    if (exponent == std::round(exponent))
        return QStringLiteral("2^%1 = %2").arg(static_cast<qint64>(exponent)).arg(value);
    return QStringLiteral("2^%1 = %2").arg(exponent, 0, 'g', 5).arg(value);
}

}  // namespace

ScalePlot::ScalePlot(RunSet* set, QWidget* parent) : RunSetTimePlot(set, RunChange::Steps, parent) {
    setObjectName(QStringLiteral("loss-scale"));
    yAxis->setLabel(tr("log\u2082 loss scale"));
    yAxis2->setLabel(tr("growth tracker (clean steps)"));
    yAxis->setRange(-1, 17);
    yAxis2->setRange(0, 2000);
    rebuild();
}

QCPGraph* ScalePlot::runGraph(int index) const {
    if (index < 0 || index >= static_cast<int>(log2Scales_.size())) return nullptr;
    return log2Scales_[static_cast<std::size_t>(index)]->graph();
}

void ScalePlot::addRunGraphs(const RunModel& run, bool focused, bool several) {
    const StepSeries& s = run.steps();
    if (focused) {
        log2Scales_.clear();
        tracker_ = backoffMarks_ = growthMarks_ = nullptr;
    }
    SeriesGraph* line = addSeries(yAxis, several ? runLabel(run) : tr("log\u2082 scale"), QPen(run.colour(), 2.0),
                                  s.log2Scale());
    line->graph()->setLineStyle(QCPGraph::lsStepLeft);
    log2Scales_.push_back(line);
    // Without a dynamic scaler there is no tracker and there are no changes to mark.
    if (!focused || s.scalerKind() != "dynamic") return;
    tracker_ = addSeries(yAxis2, lineName(run, several, tr("growth tracker")), QPen(QColor(150, 150, 150), 1.0),
                         s.growthTracker());
    backoffMarks_ = addSeries(yAxis, tr("backoff (inf/NaN gradient)"), QPen(QColor(200, 0, 0)), s.backoffMarks());
    backoffMarks_->graph()->setLineStyle(QCPGraph::lsNone);
    backoffMarks_->graph()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(200, 0, 0), QColor(255, 90, 90), 7));
    growthMarks_ = addSeries(yAxis, tr("growth"), QPen(QColor(30, 140, 50)), s.growthMarks());
    growthMarks_->graph()->setLineStyle(QCPGraph::lsNone);
    growthMarks_->graph()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangle, QColor(30, 140, 50), QColor(30, 140, 50), 6));
}

std::vector<RunSetTimePlot::BandQuantity> ScalePlot::bandQuantities() const {
    return {{yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.steps().log2Scale(); }, tr("log\u2082 scale"), true, Qt::SolidLine}};
}

void ScalePlot::afterRebuild() {
    if (shownRuns().empty()) log2Scales_.clear();
    yAxis2->setVisible(tracker_ != nullptr);
}

QString ScalePlot::emptyText() const {
    if (shownRuns().empty()) return QString();
    bool anySteps = false, anyDynamic = false, anyStatic = false;
    for (const RunModel* run : shownRuns()) {
        anySteps = anySteps || !run->steps().log2Scale().empty();
        anyDynamic = anyDynamic || run->steps().scalerKind() == "dynamic";
        anyStatic = anyStatic || run->steps().scalerKind() == "static";
    }
    if (!anySteps) return tr("Waiting for the first step\u2026");
    if (anyDynamic) return QString();
    // A note shares the plot with a flat line at its middle: it sits above.
    if (anyStatic)
        return tr("Static loss scale: it never changes;\noverflowing steps are still skipped");
    return tr("No loss scaler in this run\n(precision.scaler.kind resolves to off):"
              "\nthe scale stays 1 = 2\u2070");
}

void ScalePlot::applyAutoRanges() {
    setPlaceholderHeight(tracker_ ? 0.5 : 0.25);
    double lastStep = 0.0, low = INFINITY, high = -INFINITY;
    for (const RunModel* run : shownRuns()) {
        const DecimatedSeries& s = run->steps().log2Scale();
        lastStep = std::max(lastStep, s.lastX());
        if (!s.hasFiniteY()) continue;
        low = std::min(low, s.minY());
        high = std::max(high, s.maxY());
    }
    setXRangeToData(lastStep);
    if (std::isfinite(low)) yAxis->setRange(std::floor(low) - 1.0, std::ceil(high) + 1.0);
    if (!shownRuns().empty()) {
        const double interval =
            static_cast<double>(std::max<int64_t>(shownRuns().front()->steps().growthInterval(), 1));
        yAxis2->setRange(0.0, interval * 1.05);
    }
}

const ScaleEvent* ScalePlot::nearestChange(const std::vector<ScaleEvent>& changes,
                                                       double step) {
    if (changes.empty()) return nullptr;
    auto it = std::lower_bound(
        changes.begin(), changes.end(), step,
        [](const ScaleEvent& c, double s) { return static_cast<double>(c.step) < s; });
    if (it == changes.end()) return &changes.back();
    if (it == changes.begin()) return &*it;
    auto before = std::prev(it);
    return (step - static_cast<double>(before->step) <= static_cast<double>(it->step) - step)
               ? &*before
               : &*it;
}

QString ScalePlot::changeText(const ScaleEvent& change, bool backoff) const {
    if (!backoff)
        return tr("growth after step %1\nscale %2 \u2192 %3")
            .arg(change.step)
            .arg(powerOfTwo(change.scale), powerOfTwo(change.scaleAfter));
    QString text = tr("backoff at step %1: a gradient was inf/NaN, the step was skipped\n"
                      "scale %2 \u2192 %3")
                       .arg(change.step)
                       .arg(powerOfTwo(change.scale), powerOfTwo(change.scaleAfter));
    text += change.layer.empty()
                ? tr("\nfirst non-finite layer: not reported")
                : tr("\nfirst non-finite layer: %1").arg(QString::fromStdString(change.layer));
    return text;
}

QString ScalePlot::hoverText(double step, QPoint pixel) const {
    if (shownRuns().empty()) return QString();
    const RunModel& focused = *shownRuns().front();
    const StepSeries& f = focused.steps();
    constexpr double kPickPixels = 8.0;
    for (const auto* list : {&f.backoffs(), &f.growths()}) {
        const ScaleEvent* change = nearestChange(*list, step);
        if (!change) continue;
        const double x = xAxis->coordToPixel(static_cast<double>(change->step));
        const double y = yAxis->coordToPixel(std::log2(change->scale));
        if (std::abs(x - pixel.x()) <= kPickPixels && std::abs(y - pixel.y()) <= 3 * kPickPixels)
            return changeText(*change, list == &f.backoffs());
    }
    QString text;
    for (const RunModel* run : shownRuns()) {
        const StepSeries& r = run->steps();
        const DecimatedSeries& s = r.log2Scale();
        if (s.empty() || !isDrawn(*run)) continue;
        const std::size_t i = s.nearestIndex(step);
        if (text.isEmpty()) text = tr("step %1").arg(static_cast<qint64>(s.x(i)));
        text += tr("\n%1: scale %2").arg(run->name(), powerOfTwo(std::exp2(s.y(i))));
        if (r.scalerKind() == "dynamic" && run == &focused)
            text += tr(", growth tracker %1 / %2")
                        .arg(static_cast<qint64>(r.growthTracker().yNear(s.x(i))))
                        .arg(r.growthInterval());
        const DecimatedSeries& skipped = r.skippedSteps();
        if (const std::size_t k = skipped.lowerIndex(s.x(i)); k < skipped.size() && skipped.x(k) == s.x(i))
            text += tr(" (optimizer step skipped)");
    }
    return text + bandHoverText(step);
}

}  // namespace ampscope::ui
