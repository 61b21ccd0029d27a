#pragma once
// Plain (no torch). What one fake-quantization did to a tensor, against its
// fp32 values: the measurements of the format probes and the format sweep.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

namespace ampscope {

struct QuantizationStats {
    int64_t elements = 0;
    int64_t nonZero = 0;        // finite and non-zero before
    int64_t underflowed = 0;    // finite non-zero before, zero after
    int64_t saturated = 0;      // finite before, rounded past the format's largest value
                                // (saturated to it, or Inf/NaN without saturation)
    int64_t nonFinite = 0;      // NaN or +-Inf before
    // Sums over the elements finite both before and after, in double.
    double squaredError = 0.0;  // sum (q - x)^2
    double squaredSignal = 0.0; // sum x^2
    // The bias of the rounding: sum sign(x) (q - x), negative when values shrink on
    // average (round to nearest zeroes small values, stochastic rounding does not in
    // expectation), against sum |x|.
    double magnitudeError = 0.0;
    double absoluteSignal = 0.0;

    // Scales. Per-tensor recipes: `scale` multiplied the values before the cast,
    // computed from `scaleAmax` (the tensor's own amax for current scaling, the
    // history's for delayed scaling); `amax` is the tensor's own, so
    // amax > scaleAmax is delayed scaling's lag. NVFP4: `scale` is the fp32
    // tensor scale s_tensor. MX: scale is NaN (there is none per tensor).
    double amax = 0.0;
    double scaleAmax = 0.0;
    double scale = std::numeric_limits<double>::quiet_NaN();

    // Block formats: blocks, and the exponent of each non-zero block scale
    // (MX: e of 2^e; NVFP4: floor(log2) of the e4m3 block scale) -> blocks.
    int64_t blocks = 0;
    int64_t zeroScaleBlocks = 0;  // NVFP4 blocks whose e4m3 scale rounded to 0
    std::map<int, int64_t> blockScaleExponents;
    // Elements zeroed while the largest element of their block survived: the
    // block's outlier set a scale too coarse for them.
    int64_t crushedByOutlier = 0;

    // Adds the element statistics of another part of the same tensor (no scale or
    // block fields): what one pass over the parts in chunks gives.
    void addElementsOf(const QuantizationStats& part) {
        elements += part.elements;
        nonZero += part.nonZero;
        underflowed += part.underflowed;
        saturated += part.saturated;
        nonFinite += part.nonFinite;
        squaredError += part.squaredError;
        squaredSignal += part.squaredSignal;
        magnitudeError += part.magnitudeError;
        absoluteSignal += part.absoluteSignal;
        amax = std::max(amax, part.amax);
    }

    double fraction(int64_t part) const { return elements ? double(part) / double(elements) : 0.0; }
    double underflowFraction() const { return fraction(underflowed); }
    double saturatedFraction() const { return fraction(saturated); }
    // MSE / mean square of the fp32 values (0 for an all-zero tensor).
    double relativeError() const { return squaredSignal > 0 ? squaredError / squaredSignal : 0.0; }
    // sum sign(x)(q - x) / sum |x|: -0.01 when the values lost 1% of their magnitude.
    double magnitudeBias() const { return absoluteSignal > 0 ? magnitudeError / absoluteSignal : 0.0; }
    // Signal-to-noise ratio in dB: +inf when nothing changed.
    double snrDb() const {
        if (squaredError == 0.0) return std::numeric_limits<double>::infinity();
        if (squaredSignal == 0.0) return -std::numeric_limits<double>::infinity();
        return 10.0 * std::log10(squaredSignal / squaredError);
    }
};

}  // namespace ampscope
