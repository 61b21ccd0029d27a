#include "plots/ScalingPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampscope::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double positiveOrGap(double value) {
    return std::isfinite(value) && value > 0.0 ? value : kNaN;
}

}  // namespace

ScalingPlot::ScalingPlot(QWidget* parent) : TimeSeriesPlot(parent) {
    setObjectName(QStringLiteral("scaling"));
    // The scale first, so that the amax lines are drawn over it where they cross.
    scale_ = addSeries(yAxis2, tr("scale (right axis)"), QPen(QColor(44, 160, 44), 1.4));
    scale_->graph()->setLineStyle(QCPGraph::lsStepLeft);
    amax_ = addSeries(yAxis, tr("amax (the tensor's own)"), QPen(QColor(31, 119, 180), 1.8));
    amax_->setSparseMarker(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    scaleAmax_ = addSeries(yAxis, tr("amax the scale came from"),
                           QPen(QColor(255, 127, 14), 1.8, Qt::DashLine));
    scaleAmax_->graph()->setLineStyle(QCPGraph::lsStepLeft);
    overflow_ = addSeries(yAxis, tr("overflow step (elements saturated)"), QPen(QColor(200, 0, 0)));
    overflow_->graph()->setLineStyle(QCPGraph::lsNone);
    overflow_->graph()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(200, 0, 0), QColor(255, 90, 90), 9));
    yAxis->setLabel(tr("amax, |x| (log axis)"));
    yAxis2->setLabel(tr("scale (log axis)"));
    yAxis2->setVisible(true);
    for (QCPAxis* axis : {yAxis, yAxis2}) setAxisLogarithmic(axis, true);
    yAxis->setNumberFormat(QStringLiteral("gb"));
    // Scales span decades (2^-10 .. 2^20): powers of ten, all written alike.
    yAxis2->setNumberFormat(QStringLiteral("eb"));
    yAxis2->setNumberPrecision(0);
    setPlaceholder(tr("No run yet"));
}

void ScalingPlot::clearPoints() {
    clearAllSeries();
}

void ScalingPlot::append(double step, double amax, double scaleAmax, double scale, bool overflow) {
    amax_->append(step, positiveOrGap(amax));
    scaleAmax_->append(step, positiveOrGap(scaleAmax));
    scale_->append(step, positiveOrGap(scale));
    if (overflow) overflow_->append(step, positiveOrGap(amax));
}

void ScalingPlot::setPerTensorScale(bool perTensor) {
    perTensor_ = perTensor;
    yAxis2->setVisible(perTensor);
    for (SeriesGraph* s : {scaleAmax_, scale_}) {
        s->graph()->setVisible(perTensor);
        if (perTensor)
            s->graph()->addToLegend();
        else
            s->graph()->removeFromLegend();
    }
}

void ScalingPlot::applyAutoRanges() {
    double lastStep = 0.0;
    double low = std::numeric_limits<double>::infinity();
    double high = 0.0;
    for (SeriesGraph* s : {amax_, scaleAmax_}) {
        const DecimatedSeries& series = s->series();
        lastStep = std::max(lastStep, series.lastX());
        if (!s->graph()->visible() || !series.hasPositiveY()) continue;
        low = std::min(low, series.minPositiveY());
        high = std::max(high, series.maxY());
    }
    setXRangeToData(lastStep);
    if (std::isfinite(low)) yAxis->setRange(paddedRange(low, high, true));
    const DecimatedSeries& scale = scale_->series();
    if (perTensor_ && scale.hasPositiveY())
        yAxis2->setRange(paddedRange(scale.minPositiveY(), scale.maxY(), true));
}

QString ScalingPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    const DecimatedSeries& amax = amax_->series();
    if (amax.empty()) return {};
    const std::size_t at = amax.nearestIndex(step);
    const double shownStep = amax.x(at);
    QString text = tr("step %1\namax %2").arg(static_cast<qint64>(shownStep)).arg(formatValue(amax.y(at)));
    if (perTensor_) {
        const DecimatedSeries& from = scaleAmax_->series();
        const DecimatedSeries& scale = scale_->series();
        if (!from.empty() && from.x(from.nearestIndex(step)) == shownStep) {
            const double scaleAmax = from.y(from.nearestIndex(step));
            text += tr("\nscale from amax %1").arg(formatValue(scaleAmax));
            if (scaleAmax > 0.0)
                text += tr("\nlag: amax / scale amax = %1").arg(formatValue(amax.y(at) / scaleAmax));
        }
        if (!scale.empty() && scale.x(scale.nearestIndex(step)) == shownStep)
            text += tr("\nscale %1").arg(formatValue(scale.y(scale.nearestIndex(step))));
    }
    const DecimatedSeries& marks = overflow_->series();
    if (!marks.empty() && marks.x(marks.nearestIndex(step)) == shownStep) text += tr("\noverflow: elements saturated");
    return text;
}

}  // namespace ampscope::ui
