#include "RunRecordParsing.h"

#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"
#include "run/StepRecordCodec.h"

// Thin forwards: the step and epoch records have one decoder, in run/StepRecordCodec.h.
namespace ampscope::ui {

std::string recordType(const nlohmann::json& record) { return record_codec::typeOf(record); }

std::optional<StepMetrics> stepFromRecord(const nlohmann::json& record) { return stepFromJson(record); }

std::optional<EpochMetrics> epochFromRecord(const nlohmann::json& record) { return epochFromJson(record); }

}  // namespace ampscope::ui
