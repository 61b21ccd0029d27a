#include "probes/PrecisionMapText.h"

#include <cmath>
#include <cstdio>

#include "common/Text.h"

namespace ampscope {

namespace {

std::string scientific(double value) {
    if (std::isnan(value)) return "not measured";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char text[32];
    std::snprintf(text, sizeof text, "%.2e", value);
    return text;
}

std::string formatOf(const PrecisionMapRecord& map, const std::string& phase) {
    const bool backward = phase == "backward";
    const std::string& name = backward ? map.formatBackward : map.formatForward;
    const int bits = backward ? map.bitsBackward : map.bitsForward;
    return name + " (unit roundoff 2^-" + std::to_string(bits) + ")";
}

}  // namespace

std::string precisionMapHeadline(const PrecisionMapRecord& map) {
    size_t forward = 0;
    for (const auto& op : map.ops) forward += op.phase == "forward" ? 1 : 0;
    std::string text = "step " + std::to_string(map.step) + ": " + map.mode + " against " + map.reference + ", " +
                       std::to_string(map.ops.size()) + " ops (" + std::to_string(forward) + " forward, " +
                       std::to_string(map.ops.size() - forward) + " backward); ulps of " + formatOf(map, "forward");
    if (map.formatBackward != map.formatForward || map.bitsBackward != map.bitsForward)
        text += ", backward " + formatOf(map, "backward");
    return text;
}

std::string precisionMapOpName(const PrecisionMapRecord& map, size_t index) {
    const auto& op = map.ops.at(index);
    std::string text = "#" + std::to_string(index) + " " + op.op;
    if (op.output != 0) text += "[" + std::to_string(op.output) + "]";
    text += " in " + op.module + " (" + op.phase + ")";
    return text;
}

std::string precisionMapOpErrors(const PrecisionMapRecord& map, size_t index) {
    const auto& op = map.ops.at(index);
    const double u = map.unitRoundoff(op.phase);
    std::string text = "rel error " + scientific(op.relError);
    if (std::isfinite(op.relError)) text += " (" + formatNumber(op.relError / u, 3) + " u)";
    text += ", its own " + scientific(op.addedError) + ", " + formatNumber(op.ulpsMax, 3) + " ulps max";
    if (op.flushed > 0) text += ", " + formatNumber(100.0 * op.flushed, 3) + "% flushed";
    if (op.saturated > 0) text += ", " + formatNumber(100.0 * op.saturated, 3) + "% saturated";
    if (op.newNan > 0) text += ", " + std::to_string(op.newNan) + " new NaN";
    if (op.newInf > 0) text += ", " + std::to_string(op.newInf) + " new Inf";
    return text;
}

std::vector<std::string> precisionMapSummary(const PrecisionMapRecord& map) {
    std::vector<std::string> lines{precisionMapHeadline(map)};
    if (const auto first = map.firstPastTolerance())
        lines.push_back("first op past " + formatNumber(kPrecisionMapToleranceUnits, 3) +
                        " unit roundoffs: " + precisionMapOpName(map, *first) + ": " +
                        precisionMapOpErrors(map, *first));
    else
        lines.push_back("every op within " + formatNumber(kPrecisionMapToleranceUnits, 3) + " unit roundoffs");
    lines.push_back("ops adding the most error:");
    for (size_t k : map.largestAdded(10))
        lines.push_back("  " + precisionMapOpName(map, k) + ": " + precisionMapOpErrors(map, k));
    if (!map.unmatched.empty()) {
        lines.push_back(std::to_string(map.unmatched.size()) + " op(s) ran on one side only:");
        for (const auto& u : map.unmatched)
            lines.push_back("  " + u.op + " in " + u.module + " (" + u.phase + "), " + u.side + " only");
    }
    lines.push_back("per module, error entering -> leaving:");
    for (const auto& m : map.modules)
        lines.push_back("  " + m.module + " (" + m.phase + "): " + scientific(m.inputError) + " -> " +
                        scientific(m.outputError));
    return lines;
}

}  // namespace ampscope
