#include "runset/LockstepSeries.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "probes/ComparisonRecords.h"
#include "probes/ProbeRecords.h"
#include "run/RecordCodec.h"

namespace ampscope::ui {

void LockstepSeries::beginRun(const RunContext& context) {
    malformed_.clear();
    lossDiff_.clear();
    cosines_.clear();
    runMode_ = QString::fromStdString(context.config.precision.mode);
    partnerMode_ = QString::fromStdString(context.config.lockstep.mode);
    lastStep_ = 0.0;
    minCosine_ = 1.0;
    maxAbsDiff_ = 0.0;
    noteChange(RunChange::Lockstep);
}

const DecimatedSeries* LockstepSeries::cosine(const std::string& layer) const {
    for (const auto& [name, series] : cosines_)
        if (name == layer) return &series;
    return nullptr;
}

void LockstepSeries::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) != probe_record_type::kLockstep) return;
    const auto read = parsedRecord(record, lockstepRecordFromJson, malformed_);
    if (!read) return;
    const LockstepRecord& r = *read;
    const double step = static_cast<double>(r.step);
    if (partnerMode_.isEmpty()) partnerMode_ = QString::fromStdString(r.mode);
    if (std::isfinite(r.lossDiff)) {
        lossDiff_.append(step, r.lossDiff);
        maxAbsDiff_ = std::max(maxAbsDiff_, std::abs(r.lossDiff));
    }
    for (const GradientComparison& layer : r.layers) {
        if (!std::isfinite(layer.cosine)) continue;
        auto it = std::find_if(cosines_.begin(), cosines_.end(),
                               [&](const auto& c) { return c.first == layer.layer; });
        if (it == cosines_.end()) {
            cosines_.emplace_back(layer.layer, DecimatedSeries());
            it = std::prev(cosines_.end());
        }
        it->second.append(step, layer.cosine);
        minCosine_ = std::min(minCosine_, layer.cosine);
    }
    lastStep_ = std::max(lastStep_, step);
    noteChange(RunChange::Lockstep);
}

}  // namespace ampscope::ui
