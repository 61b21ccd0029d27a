#include "views/ThroughputPlot.h"

#include <algorithm>

#include "runset/RunSet.h"

namespace ampscope::ui {

ThroughputPlot::ThroughputPlot(RunSet* set, QWidget* parent) : RunSetTimePlot(set, RunChange::Steps, parent) {
    setObjectName(QStringLiteral("throughput"));
    yAxis->setLabel(tr("samples/s"));
    yAxis2->setLabel(tr("ms per step (dashed)"));
    yAxis2->setVisible(true);
    rebuild();
}

void ThroughputPlot::addRunGraphs(const RunModel& run, bool focused, bool several) {
    if (focused) rates_.clear(), times_.clear();
    const StepSeries& s = run.steps();
    rates_.push_back(addSeries(yAxis, several ? runLabel(run) : tr("samples/s"), QPen(run.colour(), 1.5),
                               s.samplesPerSecond()));
    times_.push_back(addSeries(yAxis2, lineName(run, several, tr("step time (ms)")),
                               QPen(run.colour(), 1.0, Qt::DashLine), s.stepMilliseconds()));
    if (several) times_.back()->graph()->removeFromLegend();
}

std::vector<RunSetTimePlot::BandQuantity> ThroughputPlot::bandQuantities() const {
    // Step time without a fill: two filled areas on one plot would hide each other.
    return {{yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.steps().samplesPerSecond(); },
             tr("samples/s"), true, Qt::SolidLine},
            {yAxis2, [](const RunModel& r) -> const DecimatedSeries& { return r.steps().stepMilliseconds(); },
             tr("step time (ms)"), false, Qt::DashLine}};
}

void ThroughputPlot::afterRebuild() {
    if (shownRuns().empty()) rates_.clear(), times_.clear();
}

QString ThroughputPlot::emptyText() const {
    for (const RunModel* run : shownRuns())
        if (!run->steps().samplesPerSecond().empty()) return QString();
    return tr("Waiting for the first step\u2026");
}

void ThroughputPlot::applyAutoRanges() {
    double lastStep = 0.0, rate = 0.0, time = 0.0;
    for (const RunModel* run : shownRuns()) {
        const StepSeries& s = run->steps();
        lastStep = std::max(lastStep, s.samplesPerSecond().lastX());
        if (s.samplesPerSecond().hasFiniteY()) rate = std::max(rate, s.samplesPerSecond().maxY());
        if (s.stepMilliseconds().hasFiniteY()) time = std::max(time, s.stepMilliseconds().maxY());
    }
    setXRangeToData(lastStep);
    // Both axes start at 0: speeds are compared as ratios, and a zero-based axis does not
    // turn 3% of jitter into a mountain range.
    if (rate > 0.0) yAxis->setRange(0.0, paddedRange(0.0, rate, false).upper);
    if (time > 0.0) yAxis2->setRange(0.0, paddedRange(0.0, time, false).upper);
}

QString ThroughputPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    QString text;
    for (const RunModel* run : shownRuns()) {
        const DecimatedSeries& rate = run->steps().samplesPerSecond();
        if (rate.empty() || !isDrawn(*run)) continue;
        const std::size_t i = rate.nearestIndex(step);
        if (text.isEmpty()) text = tr("step %1").arg(static_cast<qint64>(rate.x(i)));
        text += tr("\n%1: %2 samples/s, step time %3 ms")
                    .arg(run->name(), formatValue(rate.y(i)),
                         formatValue(run->steps().stepMilliseconds().yNear(rate.x(i))));
    }
    return text + bandHoverText(step);
}

}  // namespace ampscope::ui
