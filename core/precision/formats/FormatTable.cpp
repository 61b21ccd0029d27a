#include "precision/formats/FormatTable.h"

#include <array>
#include <cmath>

#include "probes/Fp16Classes.h"

namespace ampscope {

namespace {

// fp16's limits are the ones the fp16 class counts use (probes/Fp16Classes.h);
// the others follow from their bit fields and are checked against the
// specifications' published values in tests/core/precision/test_formats.cpp.
constexpr std::array<FormatDescription, 6> kFormats{{
    {NumberFormat::Fp16, "fp16", "1-5-10", 16, 5, 10, 15, SpecialCodes::Ieee, fp16::kMax, fp16::kMinNormal,
     fp16::kMinSubnormal},
    {NumberFormat::Bf16, "bf16", "1-8-7", 16, 8, 7, 127, SpecialCodes::Ieee, 0x1.FEp127, 0x1p-126, 0x1p-133},
    {NumberFormat::E4M3, "e4m3", "1-4-3", 8, 4, 3, 7, SpecialCodes::NanOnlyAllOnes, 448.0, 0x1p-6, 0x1p-9},
    {NumberFormat::E5M2, "e5m2", "1-5-2", 8, 5, 2, 15, SpecialCodes::Ieee, 57344.0, 0x1p-14, 0x1p-16},
    {NumberFormat::E2M1, "e2m1", "1-2-1", 4, 2, 1, 1, SpecialCodes::None, 6.0, 1.0, 0.5},
    {NumberFormat::E8M0, "e8m0", "0-8-0", 8, 8, 0, 127, SpecialCodes::ExponentOnlyNan, 0x1p127, 0x1p-127, 0.0},
}};

}  // namespace

int FormatDescription::maxExponent() const { return std::ilogb(maxFinite); }

std::span<const FormatDescription> formatTable() { return kFormats; }

const FormatDescription& describe(NumberFormat format) {
    for (const auto& d : kFormats)
        if (d.format == format) return d;
    return kFormats.front();  // unreachable: every enumerator has a row
}

std::optional<NumberFormat> formatFromName(std::string_view name) {
    for (const auto& d : kFormats)
        if (name == d.name) return d.format;
    return std::nullopt;
}

std::string formatNames() {
    std::string names;
    for (const auto& d : kFormats) {
        if (!names.empty()) names += ", ";
        names += d.name;
    }
    return names;
}

}  // namespace ampscope
