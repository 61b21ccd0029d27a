#pragma once
// Turning run-directory records (core/run/EventSchema.md) back into the values the live
// engine streams; forwards to core/run/StepRecordCodec.h, which decodes them. The live
// and opened runs feed the same views.
// Numbers written as null carry a "<key>_nonfinite" tag ("nan", "inf", "-inf"); a null
// without a tag reads as NaN ("not finite or not measured"). Missing fields keep the
// StepMetrics/EpochMetrics defaults, so records from older runs still load.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "engine/StepMetrics.h"

namespace ampscope::ui {

// The record's "type", or "" when it has none.
std::string recordType(const nlohmann::json& record);
// A "step" record; nullopt when it is not one or has no integer "step".
std::optional<StepMetrics> stepFromRecord(const nlohmann::json& record);
// An "epoch" record; nullopt when it is not one.
std::optional<EpochMetrics> epochFromRecord(const nlohmann::json& record);

}  // namespace ampscope::ui
