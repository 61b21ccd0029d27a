#include "runset/HistogramSeries.h"

#include <cmath>

#include "probes/ProbeRecords.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope::ui {

namespace {

QString seriesKey(const QString& kind, const QString& layer) {
    return kind + QLatin1Char('/') + layer;
}

QString kindName(std::string_view kind) {
    return QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()));
}

// The weight of a histogram when its series is thinned: steps with NaN/Inf stay in view.
double nonFiniteElements(const ExponentHistogram& h) {
    return static_cast<double>(h.nan + h.posInf + h.negInf);
}

}  // namespace

QStringList HistogramSeries::kinds() {
    return {kindName(probe_kind::kParamGrad), kindName(probe_kind::kParamGradScaled),
            kindName(probe_kind::kActivationGrad)};
}

void HistogramSeries::beginRun(const RunContext& context) {
    probesEvery_ = context.config.probes.every;
    layers_.clear();
    series_.clear();
    scaleChanges_.clear();
    lastStep_ = 0;
    noteChange(RunChange::Histograms);
}

void HistogramSeries::appendSteps(const std::vector<StepMetrics>& steps) {
    for (const StepMetrics& m : steps) {
        if (m.step <= lastStep_) continue;
        lastStep_ = m.step;
        // Only the steps where the scale changed: it holds until the next change.
        const bool same = !scaleChanges_.empty() &&
                          (m.scale == scaleChanges_.back() ||
                           (std::isnan(m.scale) && std::isnan(scaleChanges_.back())));
        if (!same) *scaleChanges_.entryFor(m.step) = m.scale;  // m.step is a new last step
    }
}

void HistogramSeries::takeRunInfo(const RunInfoRecord& info) {
    if (layers_.takeRunInfo(info.layers)) noteChange(RunChange::Histograms);
}

void HistogramSeries::takeHistogram(const HistogramRecord& parsed) {
    const QString layer = QString::fromStdString(parsed.layer);
    layers_.add(layer);
    Series& s = series_.try_emplace(seriesKey(QString::fromStdString(parsed.kind), layer),
                                    kMaxKeptProbeSteps, nonFiniteElements)
                    .first->second;
    bool opened = false;
    ExponentHistogram* slot = s.entryFor(parsed.step, &opened);
    if (!opened) return;  // a step this series already has or is past: a replay
    *slot = parsed.histogram;
    noteChange(RunChange::Histograms);
}

const HistogramSeries::Series* HistogramSeries::series(const QString& kind, const QString& layer) const {
    const auto it = series_.find(seriesKey(kind, layer));
    return it == series_.end() || it->second.empty() ? nullptr : &it->second;
}

double HistogramSeries::scaleAt(int64_t step) const {
    const std::ptrdiff_t index = scaleChanges_.indexAtOrBefore(step);
    return index < 0 ? 1.0 : scaleChanges_.entry(static_cast<std::size_t>(index));
}

}  // namespace ampscope::ui
