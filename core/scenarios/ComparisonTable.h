#pragma once
// The side-by-side table that ends a multi-run scenario (and the default
// comparison): one row per run with how the mode ran, throughput, peak memory,
// final accuracy and loss, and what the loss scaler did. Plain text, fixed-width
// columns, shared by the CLI and the window. No torch, no Qt.
#include <string>
#include <vector>

#include "engine/RunSummary.h"

namespace ampscope {

struct ComparisonRow {
    std::string name;
    RunSummary summary;
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
std::string formatComparisonTable(const std::vector<ComparisonRow>& rows);

}  // namespace ampscope
