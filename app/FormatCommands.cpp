#include "FormatCommands.h"

#include <charconv>
#include <cmath>
#include <vector>

#include "common/InputError.h"
#include "precision/formats/FormatTable.h"
#include "precision/formats/ScalarCodec.h"

namespace ampscope::app {

std::string shortestDecimal(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round trip
    return std::string(buffer, result.ptr);
}

namespace {

std::string powerOfTwoNote(double value) {
    if (!(value > 0.0)) return {};
    int exponent;
    if (std::frexp(value, &exponent) != 0.5) return {};
    return " (2^" + std::to_string(exponent - 1) + ")";
}

std::string hexBits(uint32_t bits, int width) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%0*x", (width + 3) / 4, bits);
    return buffer;
}

}  // namespace

void printFormatTable(std::FILE* out) {
    for (const FormatDescription& d : formatTable()) {
        const std::string bits = std::to_string(d.bits) + " bits (" + d.layout + ", bias " +
                                 std::to_string(d.bias) + ")";
        const std::string subnormal =
            d.minSubnormal > 0 ? shortestDecimal(d.minSubnormal) + powerOfTwoNote(d.minSubnormal) : "none";
        std::fprintf(out, "%-5s %-24s max %-24s min normal %-30s min subnormal %s\n", d.name, bits.c_str(),
                     shortestDecimal(d.maxFinite).c_str(),
                     (shortestDecimal(d.minNormal) + powerOfTwoNote(d.minNormal)).c_str(), subnormal.c_str());
    }
}

void printCasts(const CliRequest& request, std::FILE* out) {
    const NumberFormat format = *formatFromName(request.castFormat);
    const OverflowPolicy overflow = request.noSaturate ? OverflowPolicy::NonSaturating : OverflowPolicy::Saturate;
    std::vector<uint32_t> codes;
    for (size_t i = 0; i < request.castNumbers.size(); ++i) {
        const auto code = encode(format, request.castNumbers[i], overflow);
        if (!code)
            throw InputError("cast: " + request.castValues[i] + ": " +
                             noCodeReason(format, request.castNumbers[i], overflow));
        codes.push_back(*code);
    }
    const int width = describe(format).bits;
    for (size_t i = 0; i < codes.size(); ++i)
        std::fprintf(out, "%s %s %s\n", request.castValues[i].c_str(),
                     shortestDecimal(decode(format, codes[i])).c_str(), hexBits(codes[i], width).c_str());
}

}  // namespace ampscope::app
