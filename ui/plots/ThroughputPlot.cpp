#include "plots/ThroughputPlot.h"

#include <algorithm>

namespace ampscope::ui {

ThroughputPlot::ThroughputPlot(QWidget* parent) : TimeSeriesPlot(parent) {
    setObjectName(QStringLiteral("throughput"));
    yAxis->setLabel(tr("throughput (samples/s)"));
    yAxis2->setLabel(tr("step time (ms)"));
    yAxis2->setVisible(true);
    samplesPerSecond_ = addSeries(yAxis, tr("samples/s"), QPen(QColor(20, 110, 160), 1.5));
    stepMilliseconds_ = addSeries(yAxis2, tr("step time (ms)"), QPen(QColor(190, 110, 30), 1.0));
    setPlaceholder(tr("No run yet"));
}

void ThroughputPlot::beginRun(const RunContext& context) {
    (void)context;
    clearAllSeries();
    setPlaceholder(tr("Waiting for the first step…"));
}

void ThroughputPlot::appendSteps(const std::vector<StepMetrics>& steps) {
    for (const StepMetrics& m : steps) {
        const double x = static_cast<double>(m.step);
        samplesPerSecond_->append(x, m.samplesPerSecond);
        stepMilliseconds_->append(x, 1000.0 * m.stepSeconds);
    }
    setPlaceholder(QString());
}

void ThroughputPlot::applyAutoRanges() {
    const DecimatedSeries& rate = samplesPerSecond_->series();
    const DecimatedSeries& time = stepMilliseconds_->series();
    setXRangeToData(rate.lastX());
    // Both axes start at 0: speeds are compared as ratios, and a zero-based axis does not
    // turn 3% of jitter into a mountain range.
    if (rate.hasFiniteY()) yAxis->setRange(0.0, paddedRange(0.0, rate.maxY(), false).upper);
    if (time.hasFiniteY()) yAxis2->setRange(0.0, paddedRange(0.0, time.maxY(), false).upper);
}

QString ThroughputPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    const DecimatedSeries& rate = samplesPerSecond_->series();
    if (rate.empty()) return QString();
    const std::size_t i = rate.nearestIndex(step);
    return tr("step %1\n%2 samples/s\nstep time %3 ms")
        .arg(static_cast<qint64>(rate.x(i)))
        .arg(formatValue(rate.y(i)))
        .arg(formatValue(stepMilliseconds_->series().yNear(rate.x(i))));
}

}  // namespace ampscope::ui
