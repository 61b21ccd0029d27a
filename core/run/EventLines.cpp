#include "run/EventLines.h"

#include <algorithm>

#include "common/JsonNesting.h"
#include "run/FlatRecordText.h"
#include "run/RunReader.h"

namespace ampscope::event_lines {

std::string jsonText(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool isBlank(std::string_view line) {
    return std::all_of(line.begin(), line.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

std::string parseRecord(std::string_view line, nlohmann::json& record) {
    // Most lines are flat objects: built straight from their text (the same value the
    // parser makes), the rest parsed.
    record_text::FlatLine flat;
    if (!flat.split(line) || !record_text::toJson(flat, record))
        record = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (record.is_discarded()) {
        return "not JSON";
    }
    // Consumers copy and dump records, which recurse per level (JsonNesting.h).
    if (findExcessJsonNesting(line) != std::string_view::npos) {
        record = nullptr;
        return "nested deeper than " + std::to_string(kMaxJsonNesting) + " levels";
    }
    const auto type = record.is_object() ? record.find("type") : record.end();
    if (!record.is_object() || type == record.end() || !type->is_string()) {
        return "not an object with a string \"type\"";
    }
    return {};
}

void noteBadLine(std::int64_t lineNumber, const std::string& why, int& count,
                 std::vector<std::string>& warnings) {
    ++count;
    if (count <= kListedBadEventLines) {
        warnings.push_back(kEvents + " line " + std::to_string(lineNumber) +
                           ": skipped an unreadable line (" + why + ")");
    } else if (count == kListedBadEventLines + 1) {
        warnings.push_back(kEvents + ": more unreadable lines; only the first " +
                           std::to_string(kListedBadEventLines) + " are listed");
    }
}

std::string unknownTypeWarning(const std::string& type, int count) {
    return kEvents + ": skipped " + std::to_string(count) + (count == 1 ? " record" : " records") +
           " of unknown type " + jsonText(nlohmann::json(type)) + " (newer schema?)";
}

std::string tornWarning(std::size_t bytes) {
    return kEvents + ": ignored a torn last line (" + std::to_string(bytes) + " bytes)";
}

}  // namespace ampscope::event_lines
