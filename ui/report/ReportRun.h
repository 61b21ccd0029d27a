#pragma once
// ReportRun: what a report says about one run directory, gathered from its files
// (core/run/EventSchema.md): facts for the header, the results table, the NaN diagnosis
// and the narrative. No drawing here (ReportPlots.h draws).
//
// Contract:
// - loadReportRun reads events.jsonl streamed, keeping none of its records.
// - loadReportRun refuses (InputError, one line naming the path) what readRunDirectory
//   refuses: a missing path, a file, a directory without config.json.
// - A run without summary.json (still being written, or its process died) loads and is
//   marked incomplete; its results come from the events instead (steps done, last finite
//   loss, skipped steps and scale changes counted), and the report says so.
// - Narrative hook: RUN_DIR/narrative.md (Markdown) when present, else a string
//   "narrative" in config.json (top level, or under "scenario"). Empty when none.
// - A user's TorchScript model: the file (path, size, SHA-256) from config.json's model
//   section, the module tree from the model_modules record (the record's path and
//   SHA-256 when config.json lacks them). The model file itself is never opened.
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "engine/RunSummary.h"
#include "models/ScriptModuleInfo.h"
#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/ProbeRecords.h"

namespace ampscope::ui {

struct ReportResults {
    int64_t steps = 0;
    std::optional<double> wallSeconds;
    std::optional<double> samplesPerSecond;
    std::optional<int64_t> peakMemoryBytes;
    std::optional<double> finalTrainLoss;  // NaN: the loss was not finite
    std::optional<double> valLoss;
    std::optional<double> valAccuracy;  // in [0, 1]
    int64_t skippedSteps = 0;
    std::optional<double> finalScale;
    int64_t scaleBackoffs = 0;
    int64_t scaleGrowths = 0;
};

// The user's model file a TorchScript run trained, as the run recorded it.
struct ReportModelFile {
    QString path;
    int64_t bytes = 0;  // 0: not recorded
    QString sha256;
    std::vector<ScriptModuleInfo> modules;  // the model_modules record's (pre-order)
    bool hasModuleRecord = false;
};

struct ReportRun {
    QString directory;
    QString shownDirectory;  // what the report calls it: the directory, or the ssh:// address of its copy
    QString title;          // the directory's name
    QString status;         // finished | stopped | error | incomplete
    bool complete = false;  // summary.json present
    QString startTime;      // run_start's ISO time
    QString device;         // "cpu" / "cuda"
    QString deviceName;
    int threads = 0;
    QString torchVersion;
    QString ampscopeVersion;
    QString mode;
    bool emulated = false;
    QString execution;  // how the mode ran, one line
    // Who wrote the records (EventSchema.h kSourceField): empty for the engine,
    // record_source::kPyTorchRecorder for a run recorded by the Python package.
    QString source;
    QString cudaVersion;  // a recorded run's CUDA (empty: none, or the engine's run)
    bool recorded() const;
    QString model;
    QString dataset;
    int64_t parameters = 0;
    QString errorMessage;   // the run's error, if it ended with one
    QStringList warnings;   // from reading the directory
    nlohmann::json config;  // config.json as written
    ReportResults results;
    std::vector<LayerUnderflowSummary> underflow;  // summary.json's per-layer means
    std::optional<NonFiniteRecord> nonFinite;
    std::optional<ReportModelFile> modelFile;  // a TorchScript model's run only
    QString narrativeMarkdown;
    // The number formats: the format_sweep records of the run's last sweep step and the
    // format_quant records of its last probe step (a format mode's); empty when none.
    std::vector<FormatSweepRecord> formatSweep;
    std::vector<FormatQuantRecord> formatQuant;
    // The records are not kept (a long run does not fit): the plots stream them again
    // from `directory` (ReportRunViews.h).
};

ReportRun loadReportRun(const QString& directory);

// "key: value" lines of the config's main sections, for the config summary.
QStringList configSummaryLines(const nlohmann::json& config);

}  // namespace ampscope::ui
