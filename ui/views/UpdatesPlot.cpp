#include "views/UpdatesPlot.h"

#include <algorithm>
#include <cmath>

#include "runset/RunSet.h"

namespace ampscope::ui {

namespace {

Qt::PenStyle layerStyle(std::size_t index) {
    static const Qt::PenStyle kStyles[5] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                            Qt::DashDotDotLine};
    return kStyles[index % 5];
}

}  // namespace

UpdatesPlot::UpdatesPlot(RunSet* set, QWidget* parent)
    : RunSetTimePlot(set, RunChange::Updates | RunChange::Steps, parent) {
    setObjectName(QStringLiteral("updates"));
    setMeasure(Measure::LostUpdates);
}

void UpdatesPlot::setMeasure(Measure measure) {
    measure_ = measure;
    const bool logarithmic = measure != Measure::LostUpdates;
    setAxisLogarithmic(yAxis, logarithmic);
    yAxis->setLabel(measure == Measure::LostUpdates ? tr("lost updates (fraction of intended)")
                    : measure == Measure::UpdateRatio ? tr("update ratio |\u0394w| / |w|")
                                                      : tr("gradient norm (unscaled)"));
    rebuild();
}

QCPGraph* UpdatesPlot::graphOf(int shownRun, const QString& line) const {
    for (const Line& l : lines_)
        if (l.shownRun == shownRun && l.name == line) return l.graph->graph();
    return nullptr;
}

void UpdatesPlot::addRunGraphs(const RunModel& run, bool focused, bool several) {
    if (focused) {
        lines_.clear();
        layersDrawn_.clear();
    }
    const int shownRun = static_cast<int>(layersDrawn_.size());
    layersDrawn_.push_back(0);
    if (measure_ != Measure::GradientNorm) {
        addLayerLines(shownRun, run, several);
        return;
    }
    const StepSeries& s = run.steps();
    lines_.push_back({shownRun, QStringLiteral("before"),
                      addSeries(yAxis, lineName(run, several, tr("gradient norm")), QPen(run.colour(), 1.5),
                                s.gradNorm())});
    lines_.push_back({shownRun, QStringLiteral("after"),
                      addSeries(yAxis, lineName(run, several, tr("after clipping")),
                                QPen(run.colour(), 1.5, Qt::DashLine), s.gradNormClipped())});
}

// The layers a run's records named since its lines were made.
void UpdatesPlot::addLayerLines(int shownRun, const RunModel& run, bool several) {
    const auto& layers = run.updates().layers();
    std::size_t& drawn = layersDrawn_[static_cast<std::size_t>(shownRun)];
    for (; drawn < layers.size(); ++drawn) {
        const UpdateSeries::Layer& layer = layers[drawn];
        const DecimatedSeries& series = measure_ == Measure::LostUpdates ? layer.lostFraction : layer.ratio;
        SeriesGraph* graph =
            addSeries(yAxis, lineName(run, several, layer.name), QPen(run.colour(), 1.5, layerStyle(drawn)), series);
        graph->setSparseMarker(QCPScatterStyle(QCPScatterStyle::ssDisc, 3));
        lines_.push_back({shownRun, layer.name, graph});
    }
}

void UpdatesPlot::afterRebuild() {
    if (shownRuns().empty()) lines_.clear(), layersDrawn_.clear();
}

QString UpdatesPlot::emptyText() const {
    bool anySteps = false, anyLayers = false, anyLost = false;
    for (const RunModel* run : shownRuns()) {
        anySteps = anySteps || !run->steps().gradNorm().empty();
        anyLayers = anyLayers || !run->updates().layers().empty();
        anyLost = anyLost || run->updates().measuredLostUpdates();
    }
    if (measure_ == Measure::GradientNorm) return anySteps ? QString() : tr("Waiting for the first step\u2026");
    if (!anyLayers) return noProbeRecordsText(tr("update_ratio records"));
    if (measure_ == Measure::LostUpdates && !anyLost)
        return tr("Lost updates are counted where weights are stored in low precision\n"
                  "(modes fp16-pure, bf16-pure): here every update reached an fp32 weight");
    return QString();
}

void UpdatesPlot::applyAutoRanges() {
    const bool several = shownRuns().size() > 1;
    if (measure_ != Measure::GradientNorm)
        for (std::size_t i = 0; i < shownRuns().size() && i < layersDrawn_.size(); ++i)
            addLayerLines(static_cast<int>(i), *shownRuns()[i], several);
    double lastStep = 0.0, low = INFINITY, high = 0.0;
    for (const Line& line : lines_) {
        const DecimatedSeries& s = line.graph->series();
        if (s.empty()) continue;
        lastStep = std::max(lastStep, s.lastX());
        if (s.hasPositiveY()) low = std::min(low, s.minPositiveY());
        if (s.hasFiniteY()) high = std::max(high, s.maxY());
    }
    setXRangeToData(lastStep);
    if (measure_ == Measure::LostUpdates)
        yAxis->setRange(0.0, 1.05);
    else if (std::isfinite(low) && high > 0.0)
        yAxis->setRange(paddedRange(low, high, true));
}

std::vector<RunSetTimePlot::BandQuantity> UpdatesPlot::bandQuantities() const {
    if (measure_ != Measure::GradientNorm) return {};
    return {{yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.steps().gradNorm(); },
             tr("gradient norm"), true, Qt::SolidLine},
            {yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.steps().gradNormClipped(); },
             tr("after clipping"), false, Qt::DashLine}};
}

QString UpdatesPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    QString text;
    for (const Line& line : lines_) {
        const DecimatedSeries& s = line.graph->series();
        if (s.empty()) continue;
        const std::size_t i = s.nearestIndex(step);
        if (text.isEmpty()) text = tr("step %1").arg(static_cast<qint64>(s.x(i)));
        text += tr("\n%1: %2").arg(line.graph->graph()->name(), formatValue(s.y(i)));
    }
    return text + bandHoverText(step);
}

}  // namespace ampscope::ui
