#pragma once
// Plain (no torch). The number formats AmpScope rounds to, described once:
// every codec, quantizer, sweep and CLI line reads its limits from this table.
//
//   format  layout (s-e-m)  bias  max finite  min normal  min subnormal  specials
//   fp16    1-5-10           15   65504       2^-14       2^-24          Inf, NaN (IEEE 754 binary16)
//   bf16    1-8-7           127   ~3.39e38    2^-126      2^-133         Inf, NaN (as IEEE)
//   e4m3    1-4-3             7   448         2^-6        2^-9           no Inf; NaN = S.1111.111 (OCP OFP8 "E4M3")
//   e5m2    1-5-2            15   57344       2^-14       2^-16          Inf, NaN as IEEE (OCP OFP8 "E5M2")
//   e2m1    1-2-1             1   6           1           0.5            none (OCP Microscaling FP4)
//   e8m0    0-8-0           127   2^127       2^-127      none           NaN = 0xFF; no zero, no sign (MX scale)
//
// Sources: IEEE 754-2019 (binary16); the OCP 8-bit Floating Point
// Specification (OFP8) for e4m3/e5m2; the OCP Microscaling Formats (MX) v1.0
// Specification for e2m1 and e8m0. See docs/low-precision-formats.md.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ampscope {

enum class NumberFormat { Fp16, Bf16, E4M3, E5M2, E2M1, E8M0 };

// Which bit patterns are not ordinary numbers.
enum class SpecialCodes {
    Ieee,              // exponent all ones: Inf (mantissa 0) or NaN
    NanOnlyAllOnes,    // only S.1...1.1...1 is NaN (OCP "fn"): no Inf
    None,              // every code is a finite number
    ExponentOnlyNan,   // e8m0: 0xFF is NaN, every other code a power of two
};

struct FormatDescription {
    NumberFormat format;
    const char* name;         // as the CLI and records spell it
    const char* layout;       // sign-exponent-mantissa bits, e.g. "1-4-3"
    int bits;                 // storage width
    int exponentBits;
    int mantissaBits;         // explicit fraction bits
    int bias;
    SpecialCodes specials;
    double maxFinite;
    double minNormal;
    double minSubnormal;      // 0 when the format has no subnormals (e8m0)
    bool hasInf() const { return specials == SpecialCodes::Ieee; }
    bool hasNan() const { return specials != SpecialCodes::None; }
    // Smallest unbiased exponent of a normal number: 1 - bias.
    int minExponent() const { return 1 - bias; }
    // Unbiased exponent of maxFinite (emax of the OCP specifications: 8 for
    // e4m3, 15 for e5m2, 2 for e2m1).
    int maxExponent() const;
};

// Every format, in the order of the table above.
std::span<const FormatDescription> formatTable();
const FormatDescription& describe(NumberFormat format);
// "e4m3", "fp16", ... (case-sensitive, as in the table); nullopt otherwise.
std::optional<NumberFormat> formatFromName(std::string_view name);
// "fp16, bf16, e4m3, e5m2, e2m1, e8m0": for messages that list the choices.
std::string formatNames();

}  // namespace ampscope
