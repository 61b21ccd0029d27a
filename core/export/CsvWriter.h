#pragma once
// CsvWriter: RFC 4180 text for spreadsheets and pandas. Cells holding a comma, a quote or
// a line break are quoted (quotes doubled); lines end with "\n". Numbers are written in
// the shortest form that reads back to the same double, so a CSV round-trips exactly.
// JSON cells (the values of run records) follow the run-directory rules
// (core/run/EventSchema.md): null with a "<key>_nonfinite" tag becomes nan / inf / -inf,
// null without one an empty cell ("not measured"), booleans true / false, objects and
// arrays their compact JSON.
#include <cstdint>
#include <fstream>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

// The cell text of one JSON value; `nonFiniteTag` is the record's "<key>_nonfinite"
// string, or empty.
std::string csvCellFromJson(const nlohmann::json& value, std::string_view nonFiniteTag = {});
// Shortest round-trip text of a double ("0.1", "1e-08", "nan", "inf", "-inf").
std::string csvNumber(double value);
// `text` quoted when CSV needs it.
std::string csvEscape(std::string_view text);

class CsvWriter {
public:
    // Opens (truncates) `path`; throws InputError naming the path when it cannot.
    explicit CsvWriter(const std::string& path);
    void writeRow(const std::vector<std::string>& cells);
    // Data rows written (the header row counts too; rows() - 1 of them are data).
    int64_t rows() const { return rows_; }
    // Flushes and closes; throws InputError naming the path when a write failed.
    void close();

private:
    std::string path_;
    std::ofstream out_;
    int64_t rows_ = 0;
};

}  // namespace ampscope
