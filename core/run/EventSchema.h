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
// A user's TorchScript model: its file and module tree (run/ModelModulesRecord.h).
inline constexpr std::string_view kModelModules = "model_modules";
}  // namespace event_type
// The probe records' types live in probes/ProbeRecords.h; KnownRecordTypes.h
// lists every type this build writes (and so reads).

// Who produced a run's records: the "source" field of run_start, run_info (and of
// its "precision" object) and summary.json. Absent means the engine (every run written
// before the recorder existed). The Python recorder (python/ampscope, schema.py) writes
// kPyTorchRecorder, and its run_info.precision.execution opens with kRecordedExecution,
// which viewers show instead of REAL/EMULATED.
inline constexpr std::string_view kSourceField = "source";
namespace record_source {
inline constexpr std::string_view kEngine = "engine";
inline constexpr std::string_view kPyTorchRecorder = "pytorch_recorder";
inline constexpr std::string_view kRecordedExecution = "recorded from a PyTorch run";
}  // namespace record_source

// run_end "status" values.
namespace run_status {
inline constexpr std::string_view kFinished = "finished";
inline constexpr std::string_view kStopped = "stopped";
inline constexpr std::string_view kError = "error";
}  // namespace run_status

// step "scale_change" values: what the loss scaler's update did (StepMetrics holds a
// ScaleChange; the record codec alone turns it into these words).
namespace scale_change_name {
inline constexpr std::string_view kBackoff = "backoff";
inline constexpr std::string_view kGrowth = "growth";
}  // namespace scale_change_name

}  // namespace ampscope
