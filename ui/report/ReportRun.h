#pragma once
// ReportRun: what a report says about one run of the set, for the header, the results
// table, the NaN diagnosis and the narrative: taken from the run's stores (RunModel, which
// read each record once through its codec) and from what loading it said (LoadedRun), never
// decoded again here. No drawing here (ReportRunViews draws).
//
// Contract:
// - reportRunOf(run, loaded): the run's facts. A run without summary.json (still being
//   written, or its process died) is marked incomplete; its results are the steps' own
//   (RunOutcome), and the report says so. The summary is the later word on how the run
//   went (device, mode, model, dataset, error); run_info's otherwise; config.json's last.
// - loadReportRun(directory): one run read into a set of its own, as a report reads it;
//   throws InputError (one line naming the path) for what the run set's loader refuses.
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
#include "probes/PrecisionMapRecord.h"
#include "probes/ProbeRecords.h"
#include "probes/SensitivityRecord.h"
#include "runset/RunOutcome.h"

namespace ampscope::ui {

// What the results table shows: the summary's, or the steps' own (RunOutcome).
using ReportResults = RunResults;

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
    QStringList warnings;   // from reading the directory, the reader's first
    nlohmann::json config;  // config.json as written
    ReportResults results;
    std::vector<LayerUnderflowSummary> underflow;  // summary.json's per-layer means
    std::optional<NonFiniteRecord> nonFinite;
    std::optional<long long> firstNonFiniteLossStep;  // the first step whose loss was not finite
    std::optional<ReportModelFile> modelFile;  // a TorchScript model's run only
    QString narrativeMarkdown;
    // The number formats: the format_sweep records of the run's last sweep step and the
    // format_quant records of its last probe step (a format mode's); empty when none.
    std::vector<FormatSweepRecord> formatSweep;
    std::vector<FormatQuantRecord> formatQuant;
    // The run's last precision map (the one of the highest step); none when not taken.
    std::optional<PrecisionMapRecord> precisionMap;
    // The mean of the run's sensitivity passes (probes.sensitivity_every), and how many.
    std::optional<SensitivityRecord> sensitivity;
    int64_t sensitivityPasses = 0;
};

class RunModel;
struct LoadedRun;

ReportRun reportRunOf(const RunModel& run, const LoadedRun& loaded);
ReportRun loadReportRun(const QString& directory);

// "key: value" lines of the config's main sections, for the config summary.
QStringList configSummaryLines(const nlohmann::json& config);

}  // namespace ampscope::ui
