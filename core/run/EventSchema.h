#pragma once
// The names and versions of the run-directory format, in one place so that the
// writer, the reader and every consumer (UI, CLI, reports) spell them the same.
// EventSchema.md next to this file describes the records and the rules.
#include <string_view>

namespace ampscope {

// Version of events.jsonl, carried by its first record (run_start). Raise it
// only for a change an older reader would misread; adding fields or record
// types does not need a new version (readers ignore what they do not know).
inline constexpr int kEventsSchemaVersion = 1;

inline constexpr std::string_view kConfigFileName = "config.json";
inline constexpr std::string_view kEventsFileName = "events.jsonl";
inline constexpr std::string_view kSummaryFileName = "summary.json";

// Record types of events.jsonl, the value of each record's "type" field.
namespace event_type {
inline constexpr std::string_view kRunStart = "run_start";
inline constexpr std::string_view kStep = "step";
inline constexpr std::string_view kEpoch = "epoch";
inline constexpr std::string_view kError = "error";
inline constexpr std::string_view kRunEnd = "run_end";
inline constexpr std::string_view kRunInfo = "run_info";  // the engine's facts after run_start
inline constexpr std::string_view kFault = "fault";        // an injected fault fired
}  // namespace event_type
// The probe records' types live in probes/ProbeRecords.h; KnownRecordTypes.h
// lists every type this build writes (and so reads).

// run_end "status" values.
namespace run_status {
inline constexpr std::string_view kFinished = "finished";
inline constexpr std::string_view kStopped = "stopped";
inline constexpr std::string_view kError = "error";
}  // namespace run_status

}  // namespace ampscope
