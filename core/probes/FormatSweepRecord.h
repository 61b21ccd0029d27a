#pragma once
// Plain (no torch). The `format_sweep` probe record: how one fp32 tensor of a layer
// (its weight gradient, or the activation entering its matmul/conv) would fare in
// one number format, measured on a sweep step in any precision mode (the sweep
// itself: precision/formats/FormatSweep.h). One record per layer x tensor x format;
// ProbeRecords.md describes it.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "probes/FormatElementStats.h"

namespace ampscope {

namespace probe_record_type {
inline constexpr std::string_view kFormatSweep = "format_sweep";
}  // namespace probe_record_type

// The tensors the sweep measures.
namespace format_sweep_tensor {
inline constexpr std::string_view kGradient = "gradient";      // the layer's weight gradient
inline constexpr std::string_view kActivation = "activation";  // the input of its matmul/conv
}  // namespace format_sweep_tensor

// The tensor's element statistics in the format (FormatElementStats: elements,
// underflowed, saturated, non-finite, the squared sums; snrDb() is +inf when the format
// holds the tensor exactly), then which tensor and format. Brace-initialized, the
// statistics come first: {{elements, ...}, step, layer, tensor, format}.
struct FormatSweepRecord : FormatElementStats {
    int64_t step = 0;
    std::string layer;
    std::string tensor;  // format_sweep_tensor
    std::string format;  // fp16, bf16, e4m3, e5m2, mxfp8, mxfp4, nvfp4
};

// When a format "survives" a tensor, the rule the report states: the tensor in that
// format keeps a signal-to-noise ratio of at least 20 dB (the error's energy at most 1 %
// of the values') and under 1 % of its elements underflow to zero and under 1 % saturate.
// A plain threshold to read a table by, not a promise that training converges.
inline constexpr double kSurvivalMinSnrDb = 20.0;
inline constexpr double kSurvivalMaxUnderflow = 0.01;
inline constexpr double kSurvivalMaxSaturated = 0.01;
inline bool survives(const FormatSweepRecord& r) {
    return r.snrDb() >= kSurvivalMinSnrDb && r.underflowFraction() < kSurvivalMaxUnderflow &&
           r.saturatedFraction() < kSurvivalMaxSaturated;
}

nlohmann::json toJson(const FormatSweepRecord& record);
FormatSweepRecord formatSweepRecordFromJson(const nlohmann::json& json);  // throws RecordError
// The keys of the format_sweep record, {type: keys} (run/RecordKeys.h).
nlohmann::json formatSweepRecordKeys();

}  // namespace ampscope
