#pragma once
// Plain (no torch). The "op_dtypes" and "memory" records of events.jsonl (see
// ProbeRecords.md), written on probe steps. Parsing follows ProbeRecords.h's
// rules (strict about what a record needs, ignores unknown fields).
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "probes/StepAudit.h"

namespace ampscope {

struct OpDtypesRecord {
    int64_t step = 0;
    std::vector<LayerOps> layers;  // forward order; "loss" last
};

struct MemoryRecord {
    int64_t step = 0;
    MemoryUsage usage;
};

nlohmann::json toJson(const OpDtypesRecord& record);
nlohmann::json toJson(const MemoryRecord& record);
OpDtypesRecord opDtypesRecordFromJson(const nlohmann::json& json);
MemoryRecord memoryRecordFromJson(const nlohmann::json& json);
// The keys of the op_dtypes and memory records, {type: keys} (run/RecordKeys.h).
nlohmann::json stepAuditRecordKeys();

}  // namespace ampscope
