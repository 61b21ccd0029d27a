#pragma once
// Plain (no torch). The `precision_map` record: one training step run twice from the
// same state, in the run's precision mode and in a reference (fp32, or fp64), every op's
// output compared (engine/PrecisionMapRun.h makes it). ProbeRecords.md describes the
// fields; the definitions the views, the report, the CLI and the exports share are here.
//
// Errors are relative: ||x - ref|| / ||ref|| over the elements finite on both sides (x
// the run's value, ref the reference's). An op's `added_error` is the error it adds
// itself: its output against the same op run in the reference dtype on the run's own
// inputs (before the roundings that fed it), so an op that only moves or selects values
// (ReLU, max-pool, reshape, transpose) adds exactly 0, whatever error its input carried.
// Ulps are units of the mode's spacing at the reference's magnitude:
// 2^(floor(log2|ref|) - (p - 1)) for a format of p significand bits (at the format's
// smallest normal exponent and below, the subnormal spacing, for the unscaled formats).
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/ExponentHistogram.h"

namespace ampscope {

namespace probe_record_type {
inline constexpr std::string_view kPrecisionMap = "precision_map";
}  // namespace probe_record_type

// The references a map can be taken against (probes.precision_map_reference).
namespace precision_map_reference {
inline constexpr std::string_view kFp32 = "fp32";
inline constexpr std::string_view kFp64 = "fp64";
}  // namespace precision_map_reference

// "First op past the tolerance": the first op whose relative error exceeds this many
// unit roundoffs of the mode (one rounding adds at most one; a chain of a few ops a few).
inline constexpr double kPrecisionMapToleranceUnits = 10.0;

struct PrecisionMapOp {
    std::string op;         // "aten::conv2d"
    std::string module;     // a layer or submodule, "(model)", or "loss" (outside the model)
    std::string phase;      // nonfinite_phase: forward | backward
    std::string node;       // backward: the autograd node ("ConvolutionBackward0"); else ""
    int output = 0;         // which output of the op (convolution_backward: 0 input, 1 weight, 2 bias)
    int64_t elements = 0;
    double relError = 0.0;  // ||x - ref|| / ||ref||
    double snrDb = std::numeric_limits<double>::infinity();  // 20 log10(||ref|| / ||x - ref||)
    double addedError = std::numeric_limits<double>::quiet_NaN();  // NaN: not measured
    double inputError = 0.0;  // the largest rel_error of the ops its inputs came from (0: none)
    double ulpsMax = 0.0;
    double ulpsRms = 0.0;
    double flushed = 0.0;    // fraction: zero in the run, non-zero in the reference
    double saturated = 0.0;  // fraction: at the run's largest magnitude, the reference beyond it
    int64_t newNan = 0;      // NaN in the run where the reference has none
    int64_t newInf = 0;      // Inf in the run where the reference is finite
    ExponentHistogram run;        // log2|x|
    ExponentHistogram reference;  // log2|ref|
};

// One module in one phase: the error entering (its first op's input error) and leaving
// (its last op's error), and the gain between them.
struct PrecisionMapModule {
    std::string module;
    std::string phase;
    int64_t firstOp = 0;  // index in ops
    int64_t ops = 0;
    double inputError = 0.0;
    double outputError = 0.0;
    // outputError / inputError; NaN where no error entered (the error starts here).
    double gain() const {
        return inputError > 0.0 ? outputError / inputError : std::numeric_limits<double>::quiet_NaN();
    }
};

// An op one side ran and the other did not: listed, never dropped silently.
struct PrecisionMapUnmatched {
    std::string side;  // "run" | "reference"
    std::string op;
    std::string module;
    std::string phase;
};

struct PrecisionMapRecord {
    int64_t step = 0;
    std::string mode;       // the run's precision mode
    std::string reference;  // precision_map_reference
    // The element format the mode holds values in, forward and backward ("bf16", "e4m3",
    // "e2m1", "fp32"), and its significand bits p (implicit bit included): ulps are in its
    // spacing, and its unit roundoff is 2^-p.
    std::string formatForward, formatBackward;
    int bitsForward = 24, bitsBackward = 24;
    double seconds = 0.0;  // what mapping the step cost (both runs and the comparison)
    std::vector<PrecisionMapOp> ops;  // in the run's execution order, forward then backward
    std::vector<PrecisionMapModule> modules;
    std::vector<PrecisionMapUnmatched> unmatched;

    double unitRoundoff(std::string_view phase) const;
    double tolerance(std::string_view phase) const { return kPrecisionMapToleranceUnits * unitRoundoff(phase); }
    // The first op whose rel_error is past the tolerance of its phase; none when all are within.
    std::optional<size_t> firstPastTolerance() const;
    // Indices of the `count` ops with the largest added_error (measured ones), largest first.
    std::vector<size_t> largestAdded(size_t count) const;
};

nlohmann::json toJson(const PrecisionMapRecord& record);
PrecisionMapRecord precisionMapRecordFromJson(const nlohmann::json& json);  // throws RecordError

}  // namespace ampscope
