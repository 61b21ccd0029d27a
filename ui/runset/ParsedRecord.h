#pragma once
// The one rule for a run's record that does not read, wherever records are read: the
// dispatcher, the run set's stores and the report. The record is skipped and the reader
// goes on with the next one (a damaged line in a recorded run must not close a dock or
// stop a report). The reader's MalformedRecords counts it and keeps the first reason of
// each type; the first of each type is also a warning (qWarning) naming the reader, so
// a file of broken lines is one line per type on stderr, not one per record.
//
// parsedRecord takes either kind of decoder the core has: one that throws (the strict
// codecs: RecordError naming the record and the field) and one that returns
// std::optional (the lenient ones: nullopt when a required field is unusable).
#include <QStringList>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "run/RecordCodec.h"

namespace ampscope::ui {

class MalformedRecords {
public:
    // `reader` names who read the records in the warning ("NaN inspector", "report").
    explicit MalformedRecords(const char* reader) : reader_(reader) {}

    // One record of `type` ("" for a line that is not an object with a string "type")
    // did not read, for `reason`.
    void note(const std::string& type, const std::string& reason);
    int64_t count() const { return count_; }
    // A new run: nothing counted, every type warned about again.
    void clear();
    // One line per type, in the order first met: "events.jsonl: a TYPE record does not
    // read (REASON)", plus "; N more" when more of that type did not read.
    QStringList warnings() const;

private:
    struct Kind {
        std::string type;
        std::string reason;
        int64_t count = 0;
    };
    const char* reader_;
    int64_t count_ = 0;
    std::vector<Kind> kinds_;
};

namespace parsed_record_detail {
template <class T>
struct AsOptional {
    using type = std::optional<T>;
};
template <class T>
struct AsOptional<std::optional<T>> {
    using type = std::optional<T>;
};
}  // namespace parsed_record_detail

// decode(record), or nullopt, noted in `malformed`, when it throws or returns nullopt.
template <class Decode, class Result = parsed_record_detail::AsOptional<
                            std::decay_t<std::invoke_result_t<Decode, const nlohmann::json&>>>>
typename Result::type parsedRecord(const nlohmann::json& record, Decode&& decode, MalformedRecords& malformed) {
    try {
        typename Result::type decoded = decode(record);
        if (!decoded) malformed.note(record_codec::typeOf(record), "a required field is missing or unusable");
        return decoded;
    } catch (const std::exception& error) {
        malformed.note(record_codec::typeOf(record), error.what());
        return std::nullopt;
    }
}

}  // namespace ampscope::ui
