#include "runset/UnderflowSeries.h"

#include <algorithm>

#include "probes/ProbeRecords.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope::ui {

namespace {

double lostToFp16(const UnderflowSeries::StepCounts& layers) {
    double sum = 0.0;
    for (const auto& [layer, c] : layers)
        sum += c.flushedFraction() + c.subnormalFraction() + c.overflowFraction() + c.nonFiniteFraction();
    return sum;
}

}  // namespace

void UnderflowSeries::beginRun(const RunContext& context) {
    probesEvery_ = context.config.probes.every;
    lastStep_ = 0;
    emulated_ = false;
    layers_.clear();
    data_.clear();
    layersWithData_.clear();
    noteChange(RunChange::Underflow);
}

void UnderflowSeries::appendSteps(const std::vector<StepMetrics>& steps) {
    if (!steps.empty()) lastStep_ = std::max(lastStep_, steps.back().step);
}

void UnderflowSeries::takeRunInfo(const RunInfoRecord& info) {
    if (layers_.takeRunInfo(info.layers)) noteChange(RunChange::Underflow);
    emulated_ = info.emulated;
}

void UnderflowSeries::takeUnderflow(const UnderflowRecord& parsed) {
    if (parsed.multiplier != 1.0) return;  // a "what if" count, not what happened
    const QString kind = QString::fromStdString(parsed.kind);
    const QString layer = QString::fromStdString(parsed.layer);
    KindData& d = data_.try_emplace(kind, kMaxKeptProbeSteps, lostToFp16).first->second;
    StepCounts* reported = d.entryFor(parsed.step);
    if (!reported) return;  // steps come in order; an older one is a replay
    (*reported)[layer] = parsed.counts;
    layers_.add(layer);
    QStringList& withData = layersWithData_[kind];
    if (!withData.contains(layer)) withData << layer;
    noteChange(RunChange::Underflow);
}

const UnderflowSeries::KindData* UnderflowSeries::data(const QString& kind) const {
    const auto it = data_.find(kind);
    return it == data_.end() ? nullptr : &it->second;
}

QStringList UnderflowSeries::layersWithData(const QString& kind) const {
    const auto it = layersWithData_.find(kind);
    return it == layersWithData_.end() ? QStringList() : it->second;
}

}  // namespace ampscope::ui
