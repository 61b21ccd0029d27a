#pragma once
// Plain (no torch). A histogram of floor(log2|x|) over the elements of one or
// more tensors, in fixed integer-exponent bins, with explicit bins for what
// has no exponent: zero, NaN, +Inf, -Inf.
//
// Bins: counts[i] holds the elements with 2^(kMinExponent+i) <= |x| <
// 2^(kMinExponent+i+1), for exponents kMinExponent..kMaxExponent (97 bins).
// Finite non-zero values with an exponent below kMinExponent (fp32 subnormals
// included) go to `below`, above kMaxExponent to `above`. The range is fixed so
// that histograms of different steps, layers and runs line up bin for bin, and
// wide enough that every fp16 limit (2^-25 .. 2^16) shifted by a loss scale up
// to 2^32 stays inside it. Both signs share a bin: the probe asks "how small",
// not "which way".
#include <cstdint>
#include <vector>

#include "kernels/ProbeElementRules.h"

namespace ampscope {

// The range is defined once, with the per-element rules the CPU probe and the
// fused CUDA kernel share.
inline constexpr int kMinExponent = probe_rules::kMinExponent;  // -64
inline constexpr int kMaxExponent = probe_rules::kMaxExponent;  // 32
inline constexpr int kExponentBins = probe_rules::kExponentBins;  // 97

struct ExponentHistogram {
    std::vector<int64_t> counts = std::vector<int64_t>(kExponentBins, 0);
    int64_t below = 0;  // finite, non-zero, |x| < 2^kMinExponent
    int64_t above = 0;  // finite, |x| >= 2^(kMaxExponent+1)
    int64_t zero = 0;   // +0 and -0
    int64_t nan = 0;
    int64_t posInf = 0;
    int64_t negInf = 0;

    // Every element counted, in some bin.
    int64_t total() const;
    // Finite non-zero elements (exponent bins + below + above).
    int64_t finiteNonZero() const;
    // Count of the bin for `exponent`; 0 outside [kMinExponent, kMaxExponent].
    int64_t countAt(int exponent) const;

    // Finite non-zero elements with |x| < 2^log2Threshold (zeros excluded:
    // they have no magnitude to compare). Exact for log2Threshold in
    // [kMinExponent, kMaxExponent+1]; outside it the `below`/`above` bins would
    // have to be split, so it throws std::out_of_range.
    int64_t massBelowExponent(int log2Threshold) const;
    // Finite elements with |x| >= 2^log2Threshold; same range rule.
    int64_t massAtOrAboveExponent(int log2Threshold) const;
    // The same with the threshold as a value; it must be a power of two
    // (std::invalid_argument otherwise), since bins split only there.
    int64_t massBelow(double threshold) const;
    int64_t massAtOrAbove(double threshold) const;

    // Merges another histogram (e.g. a layer's weight and bias gradients).
    ExponentHistogram& operator+=(const ExponentHistogram& other);
    bool operator==(const ExponentHistogram& other) const = default;
};

// The exponent e with threshold == 2^e, or std::invalid_argument when the
// threshold is not a positive finite power of two.
int exactLog2(double threshold);

}  // namespace ampscope
