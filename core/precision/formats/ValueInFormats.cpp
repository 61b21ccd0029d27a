#include "precision/formats/ValueInFormats.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "precision/formats/ScalarCodec.h"
#include "precision/formats/ScalingRules.h"

namespace ampscope {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// How a finite input fared, from its magnitude before and after.
CastOutcome outcomeOf(double value, double rounded, double maxFinite, double minNormal) {
    if (std::isnan(value)) return CastOutcome::NotANumber;
    if (std::isinf(rounded)) return std::isinf(value) ? CastOutcome::Exact : CastOutcome::Overflow;
    if (std::fabs(value) > maxFinite && std::fabs(rounded) == maxFinite) return CastOutcome::Saturated;
    if (rounded == value) return CastOutcome::Exact;
    if (rounded == 0.0) return CastOutcome::Flushed;
    if (std::fabs(rounded) < minNormal) return CastOutcome::Subnormal;
    return CastOutcome::Rounded;
}

ValueCast castToFp32(double value) {
    ValueCast cast;
    cast.format = "fp32";
    cast.layout = "1-8-23";
    cast.exponentBits = 8;
    cast.mantissaBits = 23;
    const float single = static_cast<float>(value);  // round to nearest even, IEEE binary32
    cast.bits = std::bit_cast<uint32_t>(single);
    cast.value = static_cast<double>(single);
    cast.outcome = outcomeOf(value, cast.value, std::numeric_limits<double>::infinity(),
                             static_cast<double>(std::numeric_limits<float>::min()));
    return cast;
}

ValueCast castToTable(NumberFormat format, double value) {
    const FormatDescription& d = describe(format);
    ValueCast cast;
    cast.format = d.name;
    cast.layout = d.layout;
    cast.exponentBits = d.exponentBits;
    cast.mantissaBits = d.mantissaBits;
    cast.bits = encode(format, value);
    if (!cast.bits) {
        cast.value = kNaN;
        cast.outcome = CastOutcome::NoCode;
        return cast;
    }
    cast.value = decode(format, *cast.bits);
    // Saturating casts turn +-Inf into +-maxFinite too.
    cast.outcome = std::isinf(value) ? CastOutcome::Saturated
                                     : outcomeOf(value, cast.value, d.maxFinite, d.minNormal);
    return cast;
}

}  // namespace

ValueCast castTo(const std::string& format, double value) {
    if (format == "fp32") return castToFp32(value);
    const auto known = formatFromName(format);
    if (!known || *known == NumberFormat::E8M0)
        throw std::invalid_argument("castTo: no element format named " + format);
    return castToTable(*known, value);
}

std::vector<ValueCast> castToEveryFormat(double value) {
    std::vector<ValueCast> casts{castToFp32(value)};
    for (NumberFormat format : {NumberFormat::Fp16, NumberFormat::Bf16, NumberFormat::E4M3,
                                NumberFormat::E5M2, NumberFormat::E2M1})
        casts.push_back(castToTable(format, value));
    return casts;
}

BlockScaledCast castUnderBlockScale(NumberFormat element, int scaleExponent, double value) {
    if (scaleExponent < kE8m0MinExponent || scaleExponent > kE8m0MaxExponent)
        throw std::invalid_argument("castUnderBlockScale: the scale exponent " +
                                    std::to_string(scaleExponent) + " is outside e8m0's [-127, 127]");
    BlockScaledCast cast;
    cast.scaleExponent = scaleExponent;
    cast.scaleBits = static_cast<uint32_t>(scaleExponent + describe(NumberFormat::E8M0).bias);
    // Dividing by a power of two is exact in double (the value's exponent only moves).
    cast.element = castToTable(element, std::ldexp(value, -scaleExponent));
    cast.value = std::ldexp(cast.element.value, scaleExponent);
    return cast;
}

std::string hexCode(uint32_t bits, int widthBits) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%0*x", (widthBits + 3) / 4, bits);
    return buffer;
}

std::string bitFields(uint32_t bits, int exponentBits, int mantissaBits) {
    const auto field = [&](int from, int width) {
        std::string text;
        for (int i = from + width - 1; i >= from; --i) text += ((bits >> i) & 1u) ? '1' : '0';
        return text;
    };
    std::string text = field(exponentBits + mantissaBits, 1) + ' ' + field(mantissaBits, exponentBits);
    if (mantissaBits > 0) text += ' ' + field(0, mantissaBits);
    return text;
}

std::string outcomeName(CastOutcome outcome) {
    switch (outcome) {
        case CastOutcome::Exact: return "exact";
        case CastOutcome::Rounded: return "rounded";
        case CastOutcome::Subnormal: return "subnormal";
        case CastOutcome::Flushed: return "flushed to 0";
        case CastOutcome::Saturated: return "saturated at the largest finite value";
        case CastOutcome::Overflow: return "overflow to inf";
        case CastOutcome::NotANumber: return "NaN";
        case CastOutcome::NoCode: return "no code (no NaN in this format)";
    }
    return {};
}

}  // namespace ampscope
