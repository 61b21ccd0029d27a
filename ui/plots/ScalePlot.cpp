#include "plots/ScalePlot.h"

#include <algorithm>
#include <cmath>

#include "RunFacts.h"

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

ScalePlot::ScalePlot(QWidget* parent) : TimeSeriesPlot(parent) {
    setObjectName(QStringLiteral("loss-scale"));
    yAxis->setLabel(tr("log\u2082 loss scale"));
    yAxis2->setLabel(tr("growth tracker (clean steps)"));
    yAxis2->setVisible(true);

    log2Scale_ = addSeries(yAxis, tr("log\u2082 scale"), QPen(QColor(20, 70, 160), 2.0));
    log2Scale_->graph()->setLineStyle(QCPGraph::lsStepLeft);
    tracker_ = addSeries(yAxis2, tr("growth tracker"), QPen(QColor(150, 150, 150), 1.0));
    backoffMarks_ = addSeries(yAxis, tr("backoff (inf/NaN gradient)"), QPen(QColor(200, 0, 0)));
    backoffMarks_->graph()->setLineStyle(QCPGraph::lsNone);
    backoffMarks_->graph()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(200, 0, 0), QColor(255, 90, 90), 7));
    growthMarks_ = addSeries(yAxis, tr("growth"), QPen(QColor(30, 140, 50)));
    growthMarks_->graph()->setLineStyle(QCPGraph::lsNone);
    growthMarks_->graph()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangle, QColor(30, 140, 50), QColor(30, 140, 50), 6));
    yAxis->setRange(-1, 17);
    yAxis2->setRange(0, 2000);
    setPlaceholder(tr("No run yet"));
}

void ScalePlot::beginRun(const RunContext& context) {
    clearAllSeries();
    backoffs_.clear();
    growths_.clear();
    skippedSteps_.clear();
    scalerKind_ = resolvedScalerKind(context.config.precision);
    growthInterval_ = context.config.precision.scaler.growth_interval;
    // Without a dynamic scaler there is no tracker and there are no changes to mark.
    const bool dynamic = scalerKind_ == "dynamic";
    yAxis2->setVisible(dynamic);
    for (SeriesGraph* s : {tracker_, backoffMarks_, growthMarks_}) {
        s->graph()->setVisible(dynamic);
        if (dynamic)
            s->graph()->addToLegend();
        else
            s->graph()->removeFromLegend();
    }
    setPlaceholder(tr("Waiting for the first step…"));
}

void ScalePlot::appendSteps(const std::vector<StepMetrics>& steps) {
    for (const StepMetrics& m : steps) {
        const double x = static_cast<double>(m.step);
        const double log2Scale = m.scale > 0.0 ? std::log2(m.scale) : std::nan("");
        log2Scale_->append(x, log2Scale);
        tracker_->append(x, static_cast<double>(m.growthTracker));
        if (m.stepSkipped) skippedSteps_.append(x, 1.0);
        if (m.scaleChange == ampscope::ScaleChange::Backoff) {
            if (backoffs_.size() < kMaxListedChanges)
                backoffs_.push_back({m.step, m.scale, m.scaleAfter, m.firstNonFiniteLayer});
            backoffMarks_->append(x, log2Scale);
        } else if (m.scaleChange == ampscope::ScaleChange::Growth) {
            if (growths_.size() < kMaxListedChanges)
                growths_.push_back({m.step, m.scale, m.scaleAfter, {}});
            growthMarks_->append(x, log2Scale);
        }
    }
    // A note shares the plot with a flat line at its middle: keep it above.
    setPlaceholderHeight(scalerKind_ == "dynamic" ? 0.5 : 0.25);
    if (scalerKind_ == "off")
        setPlaceholder(
            tr("No loss scaler in this run\n(precision.scaler.kind resolves to off):"
               "\nthe scale stays 1 = 2\u2070"));
    else if (scalerKind_ == "static")
        setPlaceholder(
            tr("Static loss scale: it never changes;\noverflowing steps are "
               "still skipped"));
    else
        setPlaceholder(QString());
}

void ScalePlot::applyAutoRanges() {
    const DecimatedSeries& s = log2Scale_->series();
    setXRangeToData(s.lastX());
    if (s.hasFiniteY()) yAxis->setRange(std::floor(s.minY()) - 1.0, std::ceil(s.maxY()) + 1.0);
    const double interval = static_cast<double>(std::max<int64_t>(growthInterval_, 1));
    yAxis2->setRange(0.0, interval * 1.05);
}

const ScalePlot::ScaleChange* ScalePlot::nearestChange(const std::vector<ScaleChange>& changes,
                                                       double step) {
    if (changes.empty()) return nullptr;
    auto it = std::lower_bound(
        changes.begin(), changes.end(), step,
        [](const ScaleChange& c, double s) { return static_cast<double>(c.step) < s; });
    if (it == changes.end()) return &changes.back();
    if (it == changes.begin()) return &*it;
    auto before = std::prev(it);
    return (step - static_cast<double>(before->step) <= static_cast<double>(it->step) - step)
               ? &*before
               : &*it;
}

QString ScalePlot::changeText(const ScaleChange& change, bool backoff) const {
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
    constexpr double kPickPixels = 8.0;
    for (const auto* list : {&backoffs_, &growths_}) {
        const ScaleChange* change = nearestChange(*list, step);
        if (!change) continue;
        const double x = xAxis->coordToPixel(static_cast<double>(change->step));
        const double y = yAxis->coordToPixel(std::log2(change->scale));
        if (std::abs(x - pixel.x()) <= kPickPixels && std::abs(y - pixel.y()) <= 3 * kPickPixels)
            return changeText(*change, list == &backoffs_);
    }
    const DecimatedSeries& s = log2Scale_->series();
    if (s.empty()) return QString();
    const std::size_t i = s.nearestIndex(step);
    QString text =
        tr("step %1\nscale %2").arg(static_cast<qint64>(s.x(i))).arg(powerOfTwo(std::exp2(s.y(i))));
    if (scalerKind_ == "dynamic")
        text += tr("\ngrowth tracker %1 / %2")
                    .arg(static_cast<qint64>(tracker_->series().yNear(s.x(i))))
                    .arg(growthInterval_);
    const DecimatedSeries& skipped = skippedSteps_;
    if (const std::size_t k = skipped.lowerIndex(s.x(i));
        k < skipped.size() && skipped.x(k) == s.x(i))
        text += tr("\noptimizer step skipped");
    return text;
}

}  // namespace ampscope::ui
