#pragma once
// Plain (no torch). The `format_quant` probe record: what the format modes' fake
// quantization did at one rounding point (layer x operand x direction) on a probe
// step, from the quantizers' own statistics (precision/formats/QuantizationStats.h).
// Written only by runs in fp8, mxfp8, mxfp4 or nvfp4; ProbeRecords.md describes it.
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "probes/FormatElementStats.h"

namespace ampscope {

namespace probe_record_type {
inline constexpr std::string_view kFormatQuant = "format_quant";
}  // namespace probe_record_type

// One point's tensors of one step, summed (a layer with several matmuls sends
// several tensors through the same point): the element statistics (elements,
// underflowed, saturated, non-finite, the squared sums) are FormatElementStats'.
struct FormatQuantMeasurement : FormatElementStats {
    std::string layer;
    std::string operand;    // input | weight | output
    std::string direction;  // forward (the values) | backward (the gradient arriving there)
    std::string format;     // the element format: e4m3, e5m2, e2m1
    std::string recipe;     // delayed | current | mx | nvfp4
    int64_t tensors = 0;
    // sum sign(x)(q - x) and sum |x|: the rounding's bias on the values' magnitude.
    double magnitudeError = 0.0;
    double absoluteSignal = 0.0;
    double amax = 0.0;       // the largest |x| of the step's tensors
    // Per-tensor recipes: the scale of the last tensor and the amax it came from
    // (delayed scaling: the history's; amax > scale_amax is its lag). NaN for MX.
    double scale = std::numeric_limits<double>::quiet_NaN();
    double scaleAmax = 0.0;
    // Block formats (MX, NVFP4; zero and empty otherwise), summed over the tensors.
    int64_t blocks = 0;
    int64_t zeroScaleBlocks = 0;   // NVFP4 blocks whose e4m3 scale rounded to 0
    int64_t crushedByOutlier = 0;  // elements zeroed while their block's largest survived
    // Exponent of each non-zero block scale -> blocks (MX: e of 2^e; NVFP4: floor(log2)).
    std::map<int, int64_t> blockScaleExponents;

    double magnitudeBias() const { return absoluteSignal > 0 ? magnitudeError / absoluteSignal : 0.0; }
    double crushedFraction() const { return elements ? double(crushedByOutlier) / double(elements) : 0.0; }
};

struct FormatQuantRecord {
    int64_t step = 0;
    FormatQuantMeasurement point;
};

// Block-scale exponents as one line, lowest exponent first: "-3:12 -2:40" (exponent:blocks),
// empty for none. What a flat table (the CSV export) writes in one cell.
std::string blockScaleExponentsText(const std::map<int, int64_t>& counts);

nlohmann::json toJson(const FormatQuantRecord& record);
FormatQuantRecord formatQuantRecordFromJson(const nlohmann::json& json);  // throws RecordError
// The keys of the format_quant record, {type: keys} (run/RecordKeys.h).
nlohmann::json formatQuantRecordKeys();

}  // namespace ampscope
