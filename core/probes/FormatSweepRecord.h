#pragma once
// Plain (no torch). The `format_sweep` probe record: how one fp32 tensor of a layer
// (its weight gradient, or the activation entering its matmul/conv) would fare in
// one number format, measured on a sweep step in any precision mode (the sweep
// itself: precision/formats/FormatSweep.h). One record per layer x tensor x format;
// ProbeRecords.md describes it.
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace ampscope {

namespace probe_record_type {
inline constexpr std::string_view kFormatSweep = "format_sweep";
}  // namespace probe_record_type

// The tensors the sweep measures.
namespace format_sweep_tensor {
inline constexpr std::string_view kGradient = "gradient";      // the layer's weight gradient
inline constexpr std::string_view kActivation = "activation";  // the input of its matmul/conv
}  // namespace format_sweep_tensor

struct FormatSweepRecord {
    int64_t step = 0;
    std::string layer;
    std::string tensor;  // format_sweep_tensor
    std::string format;  // fp16, bf16, e4m3, e5m2, mxfp8, mxfp4, nvfp4
    int64_t elements = 0;
    int64_t underflowed = 0;  // finite non-zero before, zero after
    int64_t saturated = 0;    // rounded past the format's largest finite value
    int64_t nonFinite = 0;    // NaN or Inf before
    double squaredError = 0.0;
    double squaredSignal = 0.0;

    double underflowFraction() const { return elements ? double(underflowed) / double(elements) : 0.0; }
    double saturatedFraction() const { return elements ? double(saturated) / double(elements) : 0.0; }
    // +inf when the format holds the tensor exactly.
    double snrDb() const {
        if (squaredError == 0.0) return std::numeric_limits<double>::infinity();
        if (squaredSignal == 0.0) return -std::numeric_limits<double>::infinity();
        return 10.0 * std::log10(squaredSignal / squaredError);
    }
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
