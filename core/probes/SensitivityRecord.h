#pragma once
// Plain (no torch). What quantizing one layer at a time costs the loss, per format: the
// `sensitivity` record (engine/SensitivityPass.h measures it).
//
// The score of a layer in a format is the first-order estimate of the square of the loss
// change that quantizing that layer alone brings: (sum over its matmul/conv outputs Y of
// dL/dY (Y_q - Y))^2, where dL/dY is the fp32 reference's gradient of the batch's loss
// and Y_q the output with only that layer's operands quantized in the format (its inputs
// the reference's, so no other layer's error reaches it); combined over passes, its mean,
// an estimate of E[(loss change)^2] over batches, in loss units squared. A format that
// rounds nothing scores exactly 0.
//
// Beside it, `fisher`: the diagonal (Fisher) estimate NVIDIA ModelOpt's AutoQuantize ranks
// layers by, sum (dL/dY)^2 (Y_q - Y)^2. It treats every output element's error as
// independent, while a layer's output errors share its quantized inputs and weights; on
// the lab's models it falls short of the measured squared loss change by up to 10x and
// ranks (layer, format) pairs less well (its Spearman correlation with the measured
// change 0.80 where the first-order score's is 0.99, tests/core/engine/test_sensitivity).
//
// Beside it, the lab's own evidence of the same forward: the share of the layer's
// quantized operand elements (input and weight) that saturated at the format's largest
// value and that were flushed to zero.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

namespace probe_record_type {
inline constexpr std::string_view kSensitivity = "sensitivity";
}  // namespace probe_record_type

// The formats a sensitivity pass measures (precision modes), in the order they are
// listed; "fp32" is allowed too and scores 0 (a check of the pass itself).
inline const std::vector<std::string>& sensitivityFormats() {
    static const std::vector<std::string> formats{"fp8", "mxfp8", "mxfp4", "nvfp4"};
    return formats;
}

// A comma-separated list of them, checked: "fp8,mxfp4" -> {"fp8", "mxfp4"}. InputError
// "<what>: unknown format 'x' (valid: fp8, mxfp8, mxfp4, nvfp4)" for a name that is not
// one, or "<what>: no format" for an empty list; a repeated name counts once.
std::vector<std::string> parseSensitivityFormats(const std::string& list, const std::string& what);

struct LayerFormatSensitivity {
    std::string format;      // a precision mode: "mxfp4"
    double score = 0.0;       // loss units squared; NaN when the layer's values were not finite
    double lossChange = 0.0;  // first order, signed: sum dL/dY (Y_q - Y) (combined: the mean)
    double fisher = 0.0;      // sum (dL/dY)^2 (Y_q - Y)^2, loss units squared
    int64_t elements = 0;    // operand elements quantized (forward: input and weight)
    int64_t saturated = 0;   // of those, rounded past the format's largest value
    int64_t flushed = 0;     // finite non-zero before, zero after
    double saturatedShare() const { return elements > 0 ? double(saturated) / double(elements) : 0.0; }
    double flushedShare() const { return elements > 0 ? double(flushed) / double(elements) : 0.0; }
};

struct LayerSensitivity {
    std::string layer;
    // Forward matmul/conv FLOPs of the batch (2 x output elements x reduction length):
    // the share of the model's work the layer does.
    double flops = 0.0;
    std::vector<LayerFormatSensitivity> formats;  // in the record's format order
    const LayerFormatSensitivity* in(const std::string& format) const;
};

struct SensitivityRecord {
    int64_t step = 0;
    double loss = 0.0;     // the fp32 reference's loss on the batch
    double seconds = 0.0;  // the pass's wall time
    std::vector<std::string> formats;
    std::vector<LayerSensitivity> layers;  // the model's matmul/conv layers, in model order
};

nlohmann::json toJson(const SensitivityRecord& record);
SensitivityRecord sensitivityRecordFromJson(const nlohmann::json& json);  // throws RecordError

// Several passes (probe steps) as one: scores, FLOPs and counts averaged or summed
// over the records (they must list the same layers and formats; std::invalid_argument
// otherwise). step is the last record's.
SensitivityRecord combineSensitivity(const std::vector<SensitivityRecord>& records);

// The layers of one format, highest score first (ties: model order). A NaN score ranks
// first: a layer whose values are not finite is the most sensitive there is.
std::vector<const LayerSensitivity*> rankByScore(const SensitivityRecord& record, const std::string& format);

}  // namespace ampscope
