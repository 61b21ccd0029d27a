#pragma once
// Plain (no torch). The gradient-comparison records of events.jsonl (see
// ProbeRecords.md): "shadow" (the run against its fp32 shadow on the same
// batch and weights) and "lockstep" (run A against a second model B trained in
// another mode on the same batches). Parsing follows ProbeRecords.h's rules.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "probes/GradientComparison.h"

namespace ampscope {

struct ShadowRecord {
    int64_t step = 0;
    std::vector<GradientComparison> layers;  // layers with parameters, forward order
};

struct LockstepRecord {
    int64_t step = 0;
    std::string mode;        // B's precision mode
    double loss = 0.0;       // B's training loss on the step's batch
    double lossDiff = 0.0;   // A's loss minus B's
    bool skipped = false;    // B's optimizer step was skipped (non-finite gradients)
    // On probe steps only: A's unscaled gradients against B's (empty otherwise).
    std::vector<GradientComparison> layers;
};

nlohmann::json toJson(const ShadowRecord& record);
nlohmann::json toJson(const LockstepRecord& record);
ShadowRecord shadowRecordFromJson(const nlohmann::json& json);
LockstepRecord lockstepRecordFromJson(const nlohmann::json& json);
// The keys of the shadow and lockstep records, {type: keys} (run/RecordKeys.h).
nlohmann::json comparisonRecordKeys();

nlohmann::json gradientComparisonToJson(const GradientComparison& comparison);
GradientComparison gradientComparisonFromJson(const nlohmann::json& json);

}  // namespace ampscope
