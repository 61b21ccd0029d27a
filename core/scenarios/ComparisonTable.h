#pragma once
// The side-by-side table that ends a multi-run scenario (and the default
// comparison): one row per run with how the mode ran, throughput, peak memory,
// final accuracy and loss, and what the loss scaler did. Plain text, fixed-width
// columns, shared by the CLI and the window. No torch, no Qt.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/RunSummary.h"

namespace ampscope {

struct ComparisonRow {
    std::string name;
    RunSummary summary;
    // The run's config document: seeds of one config among the rows are a seed band, and
    // the other rows are judged against it (stats/BandVerdicts.h). Null: judged by nothing.
    nlohmann::json config;
};

// The table's cells as the text shows them: the column headers, whether each column is
// right-aligned (numbers), and one line of cells per row. The window lays them out itself.
struct ComparisonCells {
    std::vector<std::string> headers;
    std::vector<bool> rightAligned;
    std::vector<std::vector<std::string>> rows;
};
ComparisonCells comparisonTableCells(const std::vector<ComparisonRow>& rows);

// Header line, then one line per row; every line ends with '\n'. Numbers that are
// not finite (a NaN loss) print as "nan"/"inf"; accuracy as a percentage, "-" for
// regression runs. The last column names the first non-finite value, "-" if none.
// When the rows hold seeds of one config, "against the seed band:" and
// comparisonBandLines follow, after an empty line.
std::string formatComparisonTable(const std::vector<ComparisonRow>& rows);

// The rows' final validation loss and accuracy against the reference seed band
// (stats::bandVerdictLines; no step ranges: a summary keeps no loss curve). Empty when the
// rows hold no seeds of one config.
std::vector<std::string> comparisonBandLines(const std::vector<ComparisonRow>& rows);

}  // namespace ampscope
