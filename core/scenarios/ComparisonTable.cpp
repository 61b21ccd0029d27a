#include "scenarios/ComparisonTable.h"

#include <algorithm>
#include <cmath>

#include "common/Text.h"
#include "stats/BandVerdicts.h"

namespace ampscope {
namespace {

std::string accuracyText(double accuracy) {
    if (std::isnan(accuracy)) return "-";
    return formatNumber(accuracy * 100.0, 4) + "%";
}

std::string firstNonFiniteText(const RunSummary& s) {
    if (!s.firstNonFinite) return "-";
    const auto& e = *s.firstNonFinite;
    return e.layer + " " + e.phase + " step " + std::to_string(e.step);
}

std::string padded(const std::string& text, size_t width, bool right) {
    if (text.size() >= width) return text;
    const std::string fill(width - text.size(), ' ');
    return right ? fill + text : text + fill;
}

}  // namespace

ComparisonCells comparisonTableCells(const std::vector<ComparisonRow>& rows) {
    ComparisonCells table;
    table.headers = {"run",        "mode",        "how",     "status",   "samples/s",
                     "peak memory", "val acc",    "val loss", "train loss", "skipped",
                     "backoffs",   "final scale", "first non-finite"};
    // Text columns are left-aligned, numbers right-aligned.
    table.rightAligned = {false, false, false, false, true, true, true, true, true, true, true, true, false};
    for (const auto& row : rows) {
        const RunSummary& s = row.summary;
        table.rows.push_back({row.name, s.mode, s.emulated ? "emulated" : "real", s.status,
                              formatNumber(s.samplesPerSecond, 5), formatBytes(s.peakMemoryBytes),
                              accuracyText(s.valAccuracy), formatNumber(s.valLoss), formatNumber(s.finalTrainLoss),
                              std::to_string(s.skippedSteps), std::to_string(s.scaleBackoffs),
                              formatNumber(s.finalScale, 6), firstNonFiniteText(s)});
    }
    return table;
}

std::string formatComparisonTable(const std::vector<ComparisonRow>& rows) {
    const ComparisonCells table = comparisonTableCells(rows);
    const std::vector<std::string>& headers = table.headers;
    const std::vector<bool>& right = table.rightAligned;
    const std::vector<std::vector<std::string>>& cells = table.rows;
    std::vector<size_t> widths(headers.size());
    for (size_t c = 0; c < headers.size(); ++c) {
        widths[c] = headers[c].size();
        for (const auto& line : cells) widths[c] = std::max(widths[c], line[c].size());
    }
    const auto lineOf = [&](const std::vector<std::string>& values) {
        std::string line;
        for (size_t c = 0; c < values.size(); ++c) {
            if (c) line += "  ";
            // The last column is not padded: no trailing blanks.
            line += c + 1 == values.size() && !right[c] ? values[c] : padded(values[c], widths[c], right[c]);
        }
        return line + "\n";
    };
    std::string text = lineOf(headers);
    for (const auto& line : cells) text += lineOf(line);
    const std::vector<std::string> band = comparisonBandLines(rows);
    if (!band.empty()) text += "\nagainst the seed band:\n";
    for (const std::string& line : band) text += line + "\n";
    return text;
}

std::vector<std::string> comparisonBandLines(const std::vector<ComparisonRow>& rows) {
    std::vector<stats::BandCandidate> runs;
    for (const ComparisonRow& row : rows)
        runs.push_back({row.name, row.config, row.summary.valLoss, row.summary.valAccuracy, {}});
    return stats::bandVerdictLines(stats::bandVerdicts(runs), runs);
}

}  // namespace ampscope
