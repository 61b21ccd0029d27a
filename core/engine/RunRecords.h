#pragma once
// The engine's records in events.jsonl and summary.json (schema in
// core/run/EventSchema.md). Plain JSON building; no torch. Non-finite numbers
// are written as null (JSON has no NaN) with a *_nonfinite tag saying which.
#include <nlohmann/json_fwd.hpp>
#include <optional>
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
// Throws RecordError for what is not a JSON object; a field of another type reads as its
// default, silently (the engine's own summaries, old ones with fewer fields).
RunSummary summaryFromJson(const nlohmann::json& json);

// summary.json as whoever opens a recorded run reads it (a hand-edited or damaged file is
// expected here): the same lenient reading, never throwing, and each field it passed over
// for being of another type than the schema's said in one phrase, `"status" must be a
// string (got 5)`, nested fields by their path ("lockstep.mode"). Not a JSON object: the
// defaults and the one problem "not a JSON object".
// The results a summary may not state (a run stopped before its first epoch has no
// validation; an older or hand-written file may lack any of them) are also given as
// optionals, empty where the file does not state them: `summary` holds its defaults there,
// which a reader must not show as measured (a missing loss is not a loss of 0). The mode
// is empty when the file has no "precision" object.
struct SummaryReading {
    RunSummary summary;
    std::vector<std::string> problems;
    bool hasStatus = false;       // "status" was there, a string (summary.status is its value)
    bool statusMistyped = false;  // "status" was there, of another type
    std::optional<double> finalTrainLoss, valLoss, valAccuracy, finalScale;  // NaN: stated non-finite
};
SummaryReading readSummaryChecked(const nlohmann::json& json);
// The keys of summary.json, {file name: keys} (run/RecordKeys.h).
nlohmann::json summaryRecordKeys();

}  // namespace ampscope
