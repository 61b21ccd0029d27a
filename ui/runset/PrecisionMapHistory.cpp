#include "runset/PrecisionMapHistory.h"

#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"
#include "probes/PrecisionMapRecord.h"

namespace ampscope::ui {

void PrecisionMapHistory::beginRun(const RunContext& context) {
    (void)context;
    maps_.clear();
    malformed_.clear();
    noteChange(RunChange::PrecisionMap);
}

void PrecisionMapHistory::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) != probe_record_type::kPrecisionMap) return;
    if (auto map = parsedRecord(record, precisionMapRecordFromJson, malformed_)) {
        const int64_t step = map->step;
        maps_[step] = std::move(*map);
        while (maps_.size() > kMaxMaps) maps_.erase(maps_.begin());
    }
    noteChange(RunChange::PrecisionMap);
}

const PrecisionMapRecord* PrecisionMapHistory::map(int64_t step) const {
    const auto it = maps_.find(step);
    return it == maps_.end() ? nullptr : &it->second;
}

}  // namespace ampscope::ui
