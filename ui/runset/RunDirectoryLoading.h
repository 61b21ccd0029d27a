#pragma once
// Reading recorded runs into a run set: one run directory, or a folder of runs (a job's
// ranks, a scenario's output folder: runSetDirectories) as one set. The window's Open
// run, reports and benchmarks read runs this way; the window follows a run still being
// written instead (RunFeed).
//
// Contract:
// - recordedRunContext(dir): the context a run directory opens under: its name (the
//   directory's), its config (one that does not load here leaves the defaults, and
//   `note` says why), not live. Throws InputError for what is not a run (the reader's
//   one line).
// - loadRunDirectory: a new run of the set holding all the directory holds now (a
//   complete run, or what an unfinished one wrote so far), streamed in batches
//   (RunRecordReader, step lines without JSON) so a 10^6-step run reads in bounded
//   memory; progress(fraction of events.jsonl read) about every 100 ms. Refused (no run
//   added, `error` set): what the reader refuses, and a run none of whose lines is a
//   record (noRecordText: its run leaves the set again). A read error after the start
//   keeps what was read (`error` set, the run stays). The run's status is its summary's
//   ("finished", "stopped", "error"), or "incomplete" (recordedEnd; `problem` names the
//   summary's fields of another type). The summary, read once by its codec, goes to the
//   run (RunModel::takeSummary).
// - loadRunDirectories: loadRunDirectory for several directories at once, in their order:
//   every run joins the set at once (refusals at the start found then), and a few at a
//   time (about one per core) are parsed, each on a thread of its own (ParsedRunReader),
//   while the calling thread hands the batches of each in turn to its run, so the runs'
//   parsing shares the cores with the stores taking them; the next run starts as one
//   ends. progress gets the fraction of all their events read. The runs that a band will
//   draw (OpenedBandMembers.h: among those given, or bandMembers, one flag per directory,
//   when the caller decided among more) join as band members (RunContext::bandMember).
// - loadRunFolder: every run of the folder, in runSetDirectories' order; a run that does
//   not read is skipped with its line in `error`s. No run at all: one line naming the
//   folder.
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "runset/RunSet.h"

namespace ampscope {
struct SummaryReading;
}

namespace ampscope::ui {

struct LoadedRun {
    RunModel* run = nullptr;  // nullptr: refused (error says why)
    bool complete = false;    // summary.json present
    // config.json as written (what the run's RunConfig does not hold: a narrative, the
    // model file's facts, keys of another build), for a report; null when refused.
    std::shared_ptr<const nlohmann::json> configJson;
    QString error;
    QString note;     // the config did not load here
    QString problem;  // summary.json has fields of another type (one line naming them)
    QStringList warnings;
};

RunContext recordedRunContext(const QString& directory, QString* note);

// How a run ended, from its summary.json (as the reader parsed it: RunData::summary)
// through the summary's codec, never by hand: its status ("finished" for a summary
// without one, as old ones were written; "ended, status unknown" for one of another
// type), and one line naming the file and every field of another type than the schema's
// ("" when none).
struct RecordedEnd {
    QString status;
    QString problem;
};
RecordedEnd recordedEnd(const nlohmann::json& summary, const QString& directory);
RecordedEnd recordedEnd(const SummaryReading& summary, const QString& directory);

LoadedRun loadRunDirectory(RunSet& set, const QString& directory, RunSet::AddOptions options,
                           const std::function<void(double fraction)>& progress = {});

std::vector<LoadedRun> loadRunDirectories(RunSet& set, const QStringList& directories,
                                          RunSet::AddOptions options,
                                          const std::function<void(double fraction)>& progress = {},
                                          const std::vector<bool>& bandMembers = {});

// The folder's runs (each as loadRunDirectory with `options`, the focus aside: none
// takes it), then the focus goes to the run that went non-finite first (the first run
// when none did). errors: one line per run refused; when none was read, one line
// naming the folder.
std::vector<RunId> loadRunFolder(RunSet& set, const QString& folder, RunSet::AddOptions options,
                                 QStringList* errors);

}  // namespace ampscope::ui
