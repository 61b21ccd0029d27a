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
#include <string>

#include "engine/StepMetrics.h"

namespace ampscope {

void appendStepRecordText(const StepMetrics& metrics, std::string& out);

}  // namespace ampscope
