#pragma once
// Writing a lesson folder (LessonFolder.h) from what a window shows: its runs' configs, the
// docks in view, the run in focus. The folder it writes opens again to the same runs, the
// same docks and the same views; a teacher then edits the narrative it starts.
//
// Contract:
// - writeLessonFolder(folder, draft): `folder` must not exist, or be empty; written are
//   scenario.json (name, summary, runs, docks, views), RUN.json per run (every field, as a
//   run's config.json) and narrative.md (a title, the summary, and one line linking each
//   view, for the teacher to fill in).
// - A lesson holds what its runs read: a run's own files (a safetensors data.path, a
//   TorchScript model.path, an IDX data.path folder's files) are copied into data/ and
//   models/ and the configs name the copies, relative to the folder. The built-in
//   datasets' Debian location (an empty data.path) stays empty.
// - Run names become lesson run names (isRunName): other characters become '-', and a
//   name taken twice gets -2, -3, ...
// - The folder is read back with every rule of a lesson before writeLessonFolder returns;
//   a draft that does not make a valid lesson (no run, a file missing) is an InputError of
//   one line, and a folder it started is removed.
// No torch, no Qt.
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "scenarios/ScenarioCatalogue.h"

namespace ampscope {

struct LessonDraft {
    std::string name;     // the lesson's name (scenario.json "name")
    std::string summary;  // one line
    struct Run {
        std::string name;  // as the window shows it; made a run name on writing
        RunConfig config;
    };
    std::vector<Run> runs;
    std::vector<std::string> docks;  // the docks in view (scenarioDockIds), raised on loading
    std::string focusedRun;          // a run's name as above; the views show it
};

// The lesson as written (its run names, the views it made); InputError as above.
Scenario writeLessonFolder(const std::string& folder, const LessonDraft& draft);

}  // namespace ampscope
