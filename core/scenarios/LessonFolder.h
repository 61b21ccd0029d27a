#pragma once
// A lesson a teacher writes: a folder in the format of a built-in scenario
// (resources/scenarios/NAME/): scenario.json, one RUN.json per run, narrative.md, and the
// files its runs name (a safetensors data.path, a TorchScript model.path), read by the
// same parser as the built-ins (ScenarioParser.h). A lesson comes from someone else, so
// its folder is held to more than a built-in is:
// - every file it reads or names stays inside the folder: no absolute path, no "..", no
//   symlink that resolves outside (checked on the canonical paths); each refusal names
//   the file and the field;
// - sizes and counts are bounded (LessonLimits.h), checked before anything is read;
// - a run's relative paths resolve against the folder, whatever the working directory.
// Loading a lesson never loads its model: trusting a TorchScript file (which runs code) is
// the caller's decision (`ampscope-cli run --lesson ... --trust-model`).
// No torch, no Qt.
#include <optional>
#include <string>
#include <vector>

#include "scenarios/ScenarioCatalogue.h"
#include "scenarios/ScenarioProblems.h"

namespace ampscope {

struct LessonCheck {
    std::string folder;              // as given
    std::optional<Scenario> lesson;  // present when problems is empty
    // Every problem, in the order found (scenario.json, then each run's config, then the
    // narrative); a lesson refused outright (a file too large, too many runs) has one.
    std::vector<ScenarioProblem> problems;
};

// InputError when `path` is not a folder that can be read (one line naming it); every
// problem of the lesson itself is in the result.
LessonCheck checkLessonFolder(const std::string& path);

// The lesson, or an InputError of one line: the first problem, with the folder's path (or
// `shownAs`: a lesson file's path, for the folder it was unpacked into) before its file,
// and how many more there are (check-lesson lists them).
Scenario loadLessonFolder(const std::string& path, const std::string& shownAs = {});

// A TorchScript model a lesson's run would load: code, which runs as the user, so the
// CLI (--trust-model) and the window (a dialog) load it only with the user's word.
struct LessonModel {
    std::string run;
    std::string path;    // absolute, inside the lesson's folder
    std::string sha256;  // of the file, for the user to compare with what the author gave
};

// The models `runs` would load (a lesson's runs as they will run, --set applied), in run
// order.
std::vector<LessonModel> lessonModels(const std::vector<NamedRunConfig>& runs);

}  // namespace ampscope
