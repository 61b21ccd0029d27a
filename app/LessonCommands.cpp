#include "LessonCommands.h"

#include "ScenarioRunner.h"
#include "common/InputError.h"
#include "scenarios/LessonArchive.h"
#include "scenarios/LessonFolder.h"

#include <memory>

namespace ampscope::app {
namespace {

// A lesson path as the commands take it: a folder, or a lesson file unpacked for as long as
// the command runs.
struct OpenedLesson {
    std::unique_ptr<UnpackedLesson> unpacked;
    std::string folder;
    std::string shownAs;  // the lesson file's path, for lines that would name the temporary folder
};

OpenedLesson openLesson(const std::string& path) {
    OpenedLesson opened;
    if (isLessonFile(path)) {
        opened.unpacked = std::make_unique<UnpackedLesson>(path);
        opened.folder = opened.unpacked->folder();
        opened.shownAs = path;
    } else {
        opened.folder = path;
    }
    return opened;
}

}  // namespace

int checkLessonCommand(const std::string& path, std::FILE* out, std::FILE* err) {
    const OpenedLesson opened = openLesson(path);
    const LessonCheck check = checkLessonFolder(opened.folder);
    for (const ScenarioProblem& problem : check.problems) std::fprintf(err, "%s\n", problem.text().c_str());
    if (!check.problems.empty()) return 2;
    const Scenario& lesson = *check.lesson;
    std::fprintf(out, "%s: lesson %s is valid (%zu run%s, %zu view%s)\n", path.c_str(), lesson.name.c_str(),
                 lesson.runs.size(), lesson.runs.size() == 1 ? "" : "s", lesson.views.size(),
                 lesson.views.size() == 1 ? "" : "s");
    return 0;
}

int runLessonCommand(const std::string& path, const std::string& outDirectory, const std::vector<std::string>& overrides,
                     bool trustModel, bool quiet, std::FILE* out, std::FILE* err) {
    const OpenedLesson opened = openLesson(path);
    const Scenario lesson = loadLessonFolder(opened.folder, opened.shownAs);
    const std::vector<NamedRunConfig> runs = scenarioRunConfigs(lesson, overrides);
    // Decided on the configs as they will run (--set included), before any run starts.
    if (const std::vector<LessonModel> models = lessonModels(runs); !trustModel && !models.empty())
        throw InputError("lesson " + lesson.name + ", run " + models.front().run + ": model.path " +
                         models.front().path + " is a TorchScript model (SHA-256 " + models.front().sha256 +
                         "), which runs code as you: pass --trust-model to load it");
    return runScenarioHeadless(lesson, runs, outDirectory, out, err, quiet);
}

int packLessonCommand(const std::string& folder, const std::string& lessonFile, std::FILE* out) {
    packLesson(folder, lessonFile);
    std::fprintf(out, "%s: lesson %s packed into %s\n", folder.c_str(), loadLessonFolder(folder).name.c_str(),
                 lessonFile.c_str());
    return 0;
}

}  // namespace ampscope::app
