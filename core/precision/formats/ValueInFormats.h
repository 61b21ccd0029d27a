#pragma once
// Plain (no torch). One value as each format holds it: the bits of its code and the
// value that code stands for, for fp32 and every element format of FormatTable.h, and
// under a block scale 2^e (the MX way: divide by the scale, round in the element format,
// multiply back). What the window's Format explorer shows; the codes come from the
// scalar codec (ScalarCodec.h) with its default, saturating casts, fp32's from the C++
// conversion (round to nearest, ties to even, as IEEE 754 binary32).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "precision/formats/FormatTable.h"

namespace ampscope {

// What happened to the value on the way in.
enum class CastOutcome {
    Exact,      // the format holds it as it is
    Rounded,    // to a neighbouring code (normal range)
    Subnormal,  // to a code below the smallest normal (fewer significant bits)
    Flushed,    // finite non-zero, rounded to 0
    Saturated,  // past the largest finite value: clamped to it
    Overflow,   // to +-Inf (fp32 only: its cast does not saturate)
    NotANumber, // NaN in, NaN out
    NoCode,     // the format has no code for it (e2m1 has no NaN)
};

struct ValueCast {
    std::string format;  // "fp32", "fp16", ...
    std::string layout;  // "1-8-23"
    int exponentBits = 0;
    int mantissaBits = 0;
    std::optional<uint32_t> bits;  // right-aligned code; nullopt for NoCode
    double value = 0.0;            // what the code stands for (NaN for NoCode)
    CastOutcome outcome = CastOutcome::Exact;
};

// The formats an explorer shows, in this order: fp32, fp16, bf16, e4m3, e5m2, e2m1.
std::vector<ValueCast> castToEveryFormat(double value);
// One of them by name ("fp32" or a FormatTable name other than e8m0).
ValueCast castTo(const std::string& format, double value);

// `value` under a block scale 2^scaleExponent in the element format `element` (e4m3 for
// MXFP8, e2m1 for MXFP4): the element's cast of value / 2^e, then element value * 2^e.
struct BlockScaledCast {
    int scaleExponent = 0;
    uint32_t scaleBits = 0;  // the e8m0 code of 2^e (e + 127)
    ValueCast element;       // the element's cast of value / 2^e
    double value = 0.0;      // element.value * 2^e
};
// scaleExponent must lie in e8m0's range [-127, 127] (std::invalid_argument otherwise).
BlockScaledCast castUnderBlockScale(NumberFormat element, int scaleExponent, double value);

// "0x2e66", zero-padded to the format's width.
std::string hexCode(uint32_t bits, int widthBits);
// "0 01011 1001100110": sign, exponent and mantissa fields apart.
std::string bitFields(uint32_t bits, int exponentBits, int mantissaBits);
// "exact", "rounded", "subnormal", "flushed to 0", "saturated", "overflow to inf", ...
std::string outcomeName(CastOutcome outcome);

}  // namespace ampscope
