#pragma once
// Plain (no torch). The records of events.jsonl that say what a run is and how it went
// (EventSchema.md): run_start (the writer's first line), run_info (what runs, right after
// it), fault (an injected fault fired), error (what ended the run abnormally) and run_end
// (the last line of an orderly end). One field list each (RunLifecycleRecords.cpp, under
// run/RecordCodec.h's rules), walked by the writer (toJson) and by the reader
// (...FromJson), so the two cannot drift apart.
//
// Reading is lenient, as for the step record: a field that is absent or of another type
// takes its default, so runs written by older builds and by the Python recorder read (it
// writes a null "step" for an error before the first step and a null "cuda_version"
// without CUDA). Only run_start's integer "schema_version" is required. Each ...FromJson
// returns nullopt for a record of another type or without a required field.
//
// "source" and "cuda_version" are the Python recorder's (python/ampscope): the engine
// leaves them empty, and empty strings are not written, so the engine's lines stay as
// they were.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/RunConfig.h"  // FaultConfig: the fault record is the fault that fired

namespace ampscope {

struct RunStartRecord {
    int64_t schemaVersion = 0;  // events.jsonl's (RunWriter writes kEventsSchemaVersion)
    std::string time;           // ISO 8601 UTC to the second: "2026-01-02T03:04:05Z"
    std::string ampscopeVersion;
    std::string device;   // the engine's run: cpu | cuda
    int threads = 0;      // the engine's run: intra-op threads
    std::string source;   // kSourceField; empty: the engine wrote the run
};

struct RunInfoRecord {
    int64_t totalSteps = 0;
    std::string description;  // one line: model, data, mode, device
    std::string device;       // cpu | cuda
    std::string deviceName;   // the CPU model or the GPU's name
    int threads = 0;
    std::string torchVersion;
    std::string cudaVersion;  // a recorded run's; empty: no CUDA, or the engine's run
    std::string gitRevision;
    // The "precision" object: the mode, whether it was emulated, how it ran (one line).
    std::string mode;
    bool emulated = false;
    std::string execution;
    std::string model;
    int64_t parameters = 0;
    std::vector<std::string> layers;  // the probed layers in forward order
    std::string source;               // as run_start's
};

struct ErrorRecord {
    int64_t step = 0;  // the step being run (0: before the first)
    std::string message;
    bool inputError = false;  // bad input the user can fix, not a failure of the program
};

struct RunEndRecord {
    std::string status;  // run_status::
    int64_t step = 0;    // steps done
    std::string time;    // as run_start's
};

nlohmann::json toJson(const RunStartRecord& record);
nlohmann::json toJson(const RunInfoRecord& record);
nlohmann::json toJson(const ErrorRecord& record);
nlohmann::json toJson(const RunEndRecord& record);
nlohmann::json faultRecord(const FaultConfig& fault);

std::optional<RunStartRecord> runStartFromJson(const nlohmann::json& record);
std::optional<RunInfoRecord> runInfoFromJson(const nlohmann::json& record);
std::optional<ErrorRecord> errorFromJson(const nlohmann::json& record);
std::optional<RunEndRecord> runEndFromJson(const nlohmann::json& record);
std::optional<FaultConfig> faultFromJson(const nlohmann::json& record);

// The keys of these five records, {type: keys} (run/RecordKeys.h).
nlohmann::json runLifecycleRecordKeys();

// Now as run_start's and run_end's "time" spell it.
std::string utcTimeNow();

// The "precision" object of run_info and summary.json, {"mode", "emulated",
// "execution"}, on any value with those three members.
template <class V, class P>
void visitPrecisionFacts(V& v, P& p) {
    v.fieldOr("mode", p.mode, std::string());
    v.fieldOr("emulated", p.emulated, false);
    v.fieldOr("execution", p.execution, std::string());
}

}  // namespace ampscope
