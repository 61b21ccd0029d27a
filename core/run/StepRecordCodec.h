#pragma once
// Plain (no torch). The "step" and "epoch" records of events.jsonl (EventSchema.md):
// one field list each (StepRecordCodec.cpp), read by every way these records are
// written and read, so they cannot drift apart:
//
//   stepRecord(m) / stepFromJson(record)        as JSON objects (rare steps, tests,
//                                               records already parsed as JSON)
//   appendStepRecordText(m, out)                the engine's per-step line
//   parseStepRecordText(line, m)                the way back for long runs
//
// The engine writes one step line per step, 10^6 in a long run, and building an
// nlohmann::json object for each (a map node and a key string per field) costs more
// than the line itself; opening such a run parses 10^6 of them. So the text paths
// never build JSON:
//
// appendStepRecordText(m, out) appends exactly the text of stepRecord(m).dump() (sorted
// keys, nlohmann's number spelling, null plus a "<key>_nonfinite" tag for a non-finite
// value), without a newline and with no allocation once `out` has grown to a line's
// size. A step whose layer name needs escaping (a string a user's model names) is
// written through stepRecord() itself, so escaping stays nlohmann's.
//
// parseStepRecordText(line, m) returns true, with m filled exactly as stepFromJson fills
// it from the parsed line (defaults for absent fields, NaN for null, the tags for Inf),
// when the line is a flat object as FlatRecordText.h reads one (sorted keys, no
// whitespace, no escapes, only ASCII in strings) with "type":"step" and an integer
// "step"; false for anything else (another type, an odd number, nesting, ...), and the
// caller then parses the line as JSON. Unknown keys with plain values are skipped, as
// the JSON path skips them.
//
// Reading is lenient: fields absent or of another type take their defaults (records of
// older runs still load); only a missing "type" or integer "step" makes a step
// unreadable.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engine/StepMetrics.h"

namespace ampscope {

namespace record_text {
class FlatLine;
}

nlohmann::json stepRecord(const StepMetrics& step);
// nullopt when the record is not a step or has no integer "step".
std::optional<StepMetrics> stepFromJson(const nlohmann::json& record);

nlohmann::json epochRecord(const EpochMetrics& epoch);
// nullopt when the record is not an epoch.
std::optional<EpochMetrics> epochFromJson(const nlohmann::json& record);

void appendStepRecordText(const StepMetrics& metrics, std::string& out);
bool parseStepRecordText(std::string_view line, StepMetrics& metrics);
// The same from a line already split (a reader that looks at its type first).
bool parseStepRecordText(const record_text::FlatLine& line, StepMetrics& metrics);

// The keys of the step and epoch records, {type: keys} (run/RecordKeys.h).
nlohmann::json stepRecordKeys();

// The record's word for a scale change ("backoff", "growth"; "" for none).
std::string_view scaleChangeName(ScaleChange change);

}  // namespace ampscope
