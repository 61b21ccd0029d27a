#include "precision/formats/ScalarCodec.h"

#include <cmath>

namespace ampscope {

namespace {

uint32_t signBit(const FormatDescription& d) { return 1u << (d.exponentBits + d.mantissaBits); }
uint32_t exponentAllOnes(const FormatDescription& d) { return (1u << d.exponentBits) - 1u; }
uint32_t mantissaAllOnes(const FormatDescription& d) { return (1u << d.mantissaBits) - 1u; }

uint32_t nanCode(const FormatDescription& d) {
    // IEEE: the quiet NaN (top mantissa bit set); OCP fn: S.1111.111.
    const uint32_t mantissa =
        d.specials == SpecialCodes::Ieee ? 1u << (d.mantissaBits - 1) : mantissaAllOnes(d);
    return (exponentAllOnes(d) << d.mantissaBits) | mantissa;
}

uint32_t infCode(const FormatDescription& d) { return exponentAllOnes(d) << d.mantissaBits; }

// The code of a magnitude that is exactly representable (0 <= r <= maxFinite).
uint32_t codeOfRepresentable(const FormatDescription& d, double r) {
    if (r == 0.0) return 0;
    const int emin = d.minExponent();
    if (r < std::ldexp(1.0, emin))  // subnormal: r = m * 2^(emin - M)
        return static_cast<uint32_t>(std::ldexp(r, d.mantissaBits - emin));
    const int e = std::ilogb(r);
    const auto mantissa = static_cast<uint32_t>(std::ldexp(r, d.mantissaBits - e)) - (1u << d.mantissaBits);
    return (static_cast<uint32_t>(e + d.bias) << d.mantissaBits) | mantissa;
}

std::optional<uint32_t> encodeWith(NumberFormat format, double value, double uniform,
                                   OverflowPolicy overflow) {
    if (format == NumberFormat::E8M0) return encodeE8m0(value, PowerOfTwoRounding::Floor, overflow);
    const FormatDescription& d = describe(format);
    const uint32_t sign = std::signbit(value) ? signBit(d) : 0u;
    if (std::isnan(value)) {
        if (!d.hasNan()) return std::nullopt;
        return sign | nanCode(d);
    }
    double r = std::isinf(value) ? INFINITY : roundMagnitude(d, std::fabs(value), uniform);
    if (r > d.maxFinite) {
        if (overflow == OverflowPolicy::Saturate) return sign | codeOfRepresentable(d, d.maxFinite);
        if (d.hasInf()) return sign | infCode(d);
        if (d.hasNan()) return sign | nanCode(d);
        return std::nullopt;
    }
    return sign | codeOfRepresentable(d, r);
}

}  // namespace

double roundMagnitude(const FormatDescription& d, double magnitude, double uniform) {
    if (magnitude == 0.0) return 0.0;
    // The spacing of codes around `magnitude`: 2^(e - M) with e its exponent,
    // but never below the subnormal spacing 2^(emin - M).
    const int e = std::max(std::ilogb(magnitude), d.minExponent());
    const int spacingExponent = e - d.mantissaBits;
    const double units = std::ldexp(magnitude, -spacingExponent);  // exact: a power-of-two scaling
    // units - floor(units) is exact in double, so both rules decide exactly
    // (and without touching the thread's floating-point rounding mode).
    const double below = std::floor(units);
    const double fraction = units - below;
    bool up;
    if (uniform < 0.0)  // nearest, ties to the even integer
        up = fraction > 0.5 || (fraction == 0.5 && std::fmod(below, 2.0) != 0.0);
    else
        up = uniform < fraction;
    const double rounded = below + (up ? 1.0 : 0.0);
    return std::ldexp(rounded, spacingExponent);
}

std::optional<uint32_t> encode(NumberFormat format, double value, OverflowPolicy overflow) {
    return encodeWith(format, value, -1.0, overflow);
}

std::optional<uint32_t> encodeStochastic(NumberFormat format, double value, double uniform,
                                         OverflowPolicy overflow) {
    return encodeWith(format, value, uniform < 0.0 ? 0.0 : uniform, overflow);
}

std::optional<uint32_t> encodeE8m0(double value, PowerOfTwoRounding rounding, OverflowPolicy overflow) {
    constexpr uint32_t kNan = 0xFF;
    constexpr int kBias = 127;
    if (std::isnan(value)) return kNan;
    if (value <= 0.0) return std::nullopt;  // no zero, no sign
    if (std::isinf(value)) return overflow == OverflowPolicy::Saturate ? 0xFEu : kNan;
    int exponent = std::ilogb(value);
    if (rounding == PowerOfTwoRounding::Ceil && value != std::ldexp(1.0, exponent)) ++exponent;
    if (exponent > kBias) return overflow == OverflowPolicy::Saturate ? 0xFEu : kNan;
    if (exponent < -kBias) exponent = -kBias;  // no code below 2^-127: the smallest
    return static_cast<uint32_t>(exponent + kBias);
}

double decode(NumberFormat format, uint32_t bits) {
    const FormatDescription& d = describe(format);
    if (format == NumberFormat::E8M0) {
        bits &= 0xFFu;
        return bits == 0xFFu ? NAN : std::ldexp(1.0, static_cast<int>(bits) - d.bias);
    }
    bits &= (1u << d.bits) - 1u;
    const bool negative = (bits & signBit(d)) != 0;
    const uint32_t exponentField = (bits >> d.mantissaBits) & exponentAllOnes(d);
    const uint32_t mantissa = bits & mantissaAllOnes(d);
    double magnitude;
    if (d.specials == SpecialCodes::Ieee && exponentField == exponentAllOnes(d)) {
        magnitude = mantissa == 0 ? INFINITY : NAN;
    } else if (d.specials == SpecialCodes::NanOnlyAllOnes && exponentField == exponentAllOnes(d) &&
               mantissa == mantissaAllOnes(d)) {
        magnitude = NAN;
    } else if (exponentField == 0) {
        magnitude = std::ldexp(static_cast<double>(mantissa), d.minExponent() - d.mantissaBits);
    } else {
        magnitude = std::ldexp(static_cast<double>((1u << d.mantissaBits) | mantissa),
                               static_cast<int>(exponentField) - d.bias - d.mantissaBits);
    }
    return negative ? -magnitude : magnitude;
}

std::optional<double> roundTo(NumberFormat format, double value, OverflowPolicy overflow) {
    const auto code = encode(format, value, overflow);
    if (!code) return std::nullopt;
    return decode(format, *code);
}

std::string noCodeReason(NumberFormat format, double value, OverflowPolicy overflow) {
    if (encode(format, value, overflow)) return {};
    const std::string name = describe(format).name;
    if (format == NumberFormat::E8M0)
        return value == 0.0 ? name + " has no zero (its codes are powers of two)"
                            : name + " has no sign (its codes are positive powers of two)";
    if (std::isnan(value)) return name + " has no NaN";
    return name + " has neither Inf nor NaN, so without saturation an overflow has no code";
}

}  // namespace ampscope
