#include "export/CsvWriter.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/InputError.h"

namespace ampscope {

std::string csvNumber(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string csvEscape(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

std::string csvCellFromJson(const nlohmann::json& value, std::string_view nonFiniteTag) {
    switch (value.type()) {
        case nlohmann::json::value_t::null:
            if (nonFiniteTag == "nan" || nonFiniteTag == "inf" || nonFiniteTag == "-inf")
                return std::string(nonFiniteTag);
            return {};
        case nlohmann::json::value_t::boolean:
            return value.get<bool>() ? "true" : "false";
        case nlohmann::json::value_t::number_integer:
            return std::to_string(value.get<int64_t>());
        case nlohmann::json::value_t::number_unsigned:
            return std::to_string(value.get<uint64_t>());
        case nlohmann::json::value_t::number_float:
            return csvNumber(value.get<double>());
        case nlohmann::json::value_t::string:
            return csvEscape(value.get<std::string>());
        default:
            return csvEscape(value.dump());
    }
}

CsvWriter::CsvWriter(const std::string& path) : path_(path), out_(path, std::ios::trunc) {
    if (!out_) throw InputError(path + ": cannot be written (" + std::strerror(errno) + ")");
}

void CsvWriter::writeRow(const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i) out_.put(',');
        out_ << cells[i];
    }
    out_.put('\n');
    ++rows_;
}

void CsvWriter::close() {
    out_.flush();
    const bool ok = out_.good();
    out_.close();
    if (!ok) throw InputError(path_ + ": write failed (disk full?)");
}

}  // namespace ampscope
