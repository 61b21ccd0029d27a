#pragma once
// The lines of events.jsonl as the reader (RunReader.h) and the follower (RunFollower.h)
// both take them: a line parsed into a record, unknown record types counted, and the
// warnings worded once for both. Internal to core/run.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run/EventSchema.h"
#include "run/KnownRecordTypes.h"

namespace ampscope {

namespace event_lines {

inline const std::string kEvents(kEventsFileName);

// A value as the user would see it in the file (strings quoted).
std::string jsonText(const nlohmann::json& value);

bool isBlank(std::string_view line);

// Parses one line of events.jsonl into a record. Returns an empty string on
// success, else why the line is not a record. Uses the non-throwing parse:
// garbage is expected input here, not an exceptional one.
std::string parseRecord(std::string_view line, nlohmann::json& record);

// Counts unreadable lines and names the first few, in the same words for the
// reader and the follower.
void noteBadLine(std::int64_t lineNumber, const std::string& why, int& count,
                 std::vector<std::string>& warnings);

std::string unknownTypeWarning(const std::string& type, int count);

std::string tornWarning(std::size_t bytes);

}  // namespace event_lines

// Records of a type this build does not know, by type in order of first sight.
struct UnknownTypes {
    std::vector<std::pair<std::string, int>> counts;
    int total = 0;
    // True (and counted) when the record's type is unknown: skip it.
    bool skip(const nlohmann::json& record) {
        const auto& type = record["type"].get_ref<const std::string&>();
        if (isKnownRecordType(type)) return false;
        ++total;
        for (auto& [name, count] : counts) {
            if (name == type) {
                ++count;
                return true;
            }
        }
        counts.emplace_back(type, 1);
        return true;
    }
};

}  // namespace ampscope
