#pragma once
// The engine's records in events.jsonl and summary.json (schema in
// core/run/EventSchema.md). Plain JSON building; no torch. Non-finite numbers
// are written as null (JSON has no NaN) with a *_nonfinite tag saying which.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "engine/ProbeSnapshot.h"
#include "engine/RunSummary.h"
#include "engine/StepMetrics.h"
#include "probes/NonFiniteEvent.h"
#include "run/RunLifecycleRecords.h"  // run_start, run_info, error, run_end, fault
#include "run/StepRecordCodec.h"      // the step and epoch records

namespace ampscope {

// After the writer's run_start: what runs, how the mode runs, the layer list (the
// run_info record, RunLifecycleRecords.h, from the run's facts so far).
nlohmann::json runInfoRecord(const std::string& description, const RunSummary& facts,
                             const std::vector<std::string>& layers, int64_t totalSteps);
// The records of one probe step (histogram, underflow, update_ratio; see
// core/probes/ProbeRecords.md), in layer order.
std::vector<nlohmann::json> probeRecords(const ProbeSnapshot& snapshot);
nlohmann::json nonFiniteRecord(const NonFiniteEvent& event, const std::vector<StatsFrame>& frames);
nlohmann::json summaryToJson(const RunSummary& summary);
RunSummary summaryFromJson(const nlohmann::json& json);
// The keys of summary.json, {file name: keys} (run/RecordKeys.h).
nlohmann::json summaryRecordKeys();

}  // namespace ampscope
