#pragma once
// Plain (no torch). The probe records of events.jsonl (described in
// ProbeRecords.md next to this file): JSON building and parsing for the plain
// result structs, each record declared once as a field list (ProbeRecords.cpp,
// run/RecordCodec.h), so the UI, the CLI and reports read probe results without
// torch. Every record has "type" and "step"; per-layer records have "layer".
// Parsing is strict about what a record needs and ignores fields it does not
// know; a malformed record throws ProbeRecordError naming the record type and
// the field.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "probes/ExponentHistogram.h"
#include "probes/Fp16Classes.h"
#include "probes/NonFiniteEvent.h"
#include "probes/TensorStats.h"
#include "probes/UpdateRatio.h"
#include "run/RecordError.h"

namespace ampscope {

namespace record_text {
class FlatLine;
}

namespace probe_record_type {
inline constexpr std::string_view kHistogram = "histogram";
inline constexpr std::string_view kUnderflow = "underflow";
inline constexpr std::string_view kNonFinite = "nonfinite";
inline constexpr std::string_view kUpdateRatio = "update_ratio";
// Gradient comparisons (ComparisonRecords.h) and step audits (StepAuditRecords.h).
inline constexpr std::string_view kShadow = "shadow";
inline constexpr std::string_view kLockstep = "lockstep";
inline constexpr std::string_view kOpDtypes = "op_dtypes";
inline constexpr std::string_view kMemory = "memory";
}  // namespace probe_record_type

// What a histogram/underflow record measured.
namespace probe_kind {
inline constexpr std::string_view kParamGrad = "param_grad";  // unscaled parameter gradients
inline constexpr std::string_view kParamGradScaled =
    "param_grad_scaled";  // as backward produced them
inline constexpr std::string_view kActivationGrad =
    "activation_grad";  // gradient at a layer output
inline constexpr std::string_view kActivation = "activation";  // a layer's forward output
}  // namespace probe_kind

// A malformed probe record (run/RecordError.h: every record type throws the same).
using ProbeRecordError = RecordError;

struct HistogramRecord {
    int64_t step = 0;
    std::string layer;
    std::string kind;
    ExponentHistogram histogram;
};

struct UnderflowRecord {
    int64_t step = 0;
    std::string layer;
    std::string kind;
    // The classes are those of value * multiplier (1: the values as they are;
    // the loss scale, half or twice it: "what if" counts).
    double multiplier = 1.0;
    Fp16ClassCounts counts;
};

struct NonFiniteRecord {
    NonFiniteEvent event;
    std::vector<StatsFrame> frames;  // oldest first, the steps before (and at) the event
};

struct UpdateRatioRecord {
    int64_t step = 0;
    LayerUpdateRatio ratio;
};

nlohmann::json toJson(const HistogramRecord& record);
nlohmann::json toJson(const UnderflowRecord& record);
nlohmann::json toJson(const NonFiniteRecord& record);
nlohmann::json toJson(const UpdateRatioRecord& record);

HistogramRecord histogramRecordFromJson(const nlohmann::json& json);
UnderflowRecord underflowRecordFromJson(const nlohmann::json& json);

// The two most frequent probe records (most of a long run after its step lines), read
// from a line split without building JSON (run/FlatRecordText.h): true with `out` as
// ...FromJson gives it from the parsed line; false when the line must go the JSON way
// (which then reads it, or names what is wrong with it).
bool histogramRecordFromText(const record_text::FlatLine& line, HistogramRecord& out);
bool underflowRecordFromText(const record_text::FlatLine& line, UnderflowRecord& out);
NonFiniteRecord nonFiniteRecordFromJson(const nlohmann::json& json);
UpdateRatioRecord updateRatioRecordFromJson(const nlohmann::json& json);

// The parts, for records that embed them.
// The keys of the histogram, underflow, nonfinite and update_ratio records, {type: keys}
// (run/RecordKeys.h).
nlohmann::json probeRecordKeys();

nlohmann::json tensorStatsToJson(const TensorStats& stats);
TensorStats tensorStatsFromJson(const nlohmann::json& json);
nlohmann::json statsFrameToJson(const StatsFrame& frame);
StatsFrame statsFrameFromJson(const nlohmann::json& json);

}  // namespace ampscope
