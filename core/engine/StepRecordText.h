#pragma once
// The "step" record's line in events.jsonl, written straight into a caller's buffer: the
// engine writes one per step, 10^6 in a long run, and building an nlohmann::json object
// for each (a map node and a key string per field) costs more than the line itself.
//
// Contract: appendStepRecordText(m, out) appends exactly the text of
// stepRecord(m).dump() (RunRecords.h: the same fields, sorted keys, nlohmann's number
// spelling, null plus a "<key>_nonfinite" tag for a non-finite value), without a
// newline. A step with a scale change or a first non-finite layer (rare, and a string a
// user's model names) goes through stepRecord() itself, so escaping stays nlohmann's.
// No allocation once `out` has grown to a line's size.
//
// parseStepRecordText(line, m) is the way back, for readers of a long run (opening 10^6
// steps parses 10^6 of these lines; a JSON object each costs several times the line):
// true, with m filled exactly as ui's stepFromRecord fills it from the parsed record
// (defaults for absent fields, NaN for null, "<key>_nonfinite" tags for Inf), when the
// line is one flat JSON object with "type":"step", an integer "step", no whitespace, no
// escapes and only ASCII in strings; false for anything else (another type, an odd
// number, nesting, ...), and the caller then parses the line as JSON. Unknown keys with
// plain values are skipped, as the JSON path skips them.
#include <string>
#include <string_view>

#include "engine/StepMetrics.h"

namespace ampscope {

void appendStepRecordText(const StepMetrics& metrics, std::string& out);
bool parseStepRecordText(std::string_view line, StepMetrics& metrics);

}  // namespace ampscope
