#pragma once
// Plain (no torch). One value at a time into and out of the formats of
// FormatTable.h: the reference that the tensor quantizers are tested against
// bit for bit, and what `ampscope-cli cast` prints.
//
// Rounding (every format but e8m0): to nearest, ties to even, on the value as
// a double, once. A value that rounds (with unbounded exponent) past the
// largest finite number overflows; then
//   Saturate (the default, as Transformer Engine's casts and CUDA's
//             "satfinite" conversions do): +-maxFinite; +-Inf inputs too;
//   NonSaturating: +-Inf in fp16, bf16 and e5m2; NaN in e4m3 (so 464, the tie
//             between 448 and the missing 480, still rounds to 448, and
//             everything above it is NaN); no code at all in e2m1 (it has
//             neither Inf nor NaN).
// NaN stays NaN (sign kept); e2m1 has no NaN code. Zeros keep their sign.
//
// e8m0 (a power of two, the MX block scale): the `floor` rule, 2^floor(log2 v),
// clamped to [2^-127, 2^127]; NaN is 0xFF, and +Inf or v >= 2^128 is 0xFE
// when saturating, 0xFF (NaN) otherwise. Zero and negative values have no code.
#include <cstdint>
#include <optional>
#include <string>

#include "precision/formats/FormatTable.h"

namespace ampscope {

enum class OverflowPolicy { Saturate, NonSaturating };

// How an e8m0 power of two is chosen for a positive value v.
enum class PowerOfTwoRounding {
    Floor,  // 2^floor(log2 v): the OCP MX v1.0 rule for the shared exponent
    Ceil,   // 2^ceil(log2 v): "rceil", rounding the ratio up so nothing overflows
};

// The code (right-aligned bits) of `value`, or nullopt when the format has
// none for it (see noCodeReason).
std::optional<uint32_t> encode(NumberFormat format, double value,
                               OverflowPolicy overflow = OverflowPolicy::Saturate);

// Stochastic rounding with the uniform draw u in [0, 1): of the two
// neighbours lo < |value| < hi, hi is taken when u < (|value| - lo) / (hi - lo),
// so the expected result is |value| itself (unbiased) for values in range.
// A value on a code is returned as that code for every u. Overflow as encode().
std::optional<uint32_t> encodeStochastic(NumberFormat format, double value, double uniform,
                                         OverflowPolicy overflow = OverflowPolicy::Saturate);

// e8m0 under either rule (encode() uses Floor).
std::optional<uint32_t> encodeE8m0(double value, PowerOfTwoRounding rounding,
                                   OverflowPolicy overflow = OverflowPolicy::Saturate);

// The value of a code (bits beyond the format's width are ignored).
double decode(NumberFormat format, uint32_t bits);

// encode then decode; nullopt where encode has no code.
std::optional<double> roundTo(NumberFormat format, double value,
                              OverflowPolicy overflow = OverflowPolicy::Saturate);

// Why encode() gave no code, as a phrase ("e2m1 has no NaN"); empty when it has one.
std::string noCodeReason(NumberFormat format, double value, OverflowPolicy overflow);

// The magnitude |value| rounds to with an unbounded exponent (so it may exceed
// maxFinite: that is the overflow test), for a finite value. uniform < 0
// means round to nearest even, otherwise stochastic with that draw. Not for e8m0.
double roundMagnitude(const FormatDescription& format, double magnitude, double uniform = -1.0);

}  // namespace ampscope
