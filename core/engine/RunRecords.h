#pragma once
// The engine's records in events.jsonl and summary.json (schema in
// core/run/EventSchema.md). Plain JSON building; no torch. Non-finite numbers
// are written as null (JSON has no NaN) with a *_nonfinite tag saying which.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "engine/RunSummary.h"
#include "engine/StepMetrics.h"

namespace ampscope {

nlohmann::json runStartRecord(const std::string& description);
nlohmann::json stepRecord(const StepMetrics& step);
nlohmann::json epochRecord(const EpochMetrics& epoch);
nlohmann::json errorRecord(int64_t step, const std::string& message, bool inputError);
nlohmann::json runEndRecord(const std::string& status, int64_t step);
nlohmann::json summaryToJson(const RunSummary& summary);
RunSummary summaryFromJson(const nlohmann::json& json);

}  // namespace ampscope
