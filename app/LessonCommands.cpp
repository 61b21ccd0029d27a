#include "LessonCommands.h"

#include "ScenarioRunner.h"
#include "common/InputError.h"
#include "common/Sha256.h"
#include "scenarios/LessonFolder.h"

namespace ampscope::app {

int checkLessonCommand(const std::string& path, std::FILE* out, std::FILE* err) {
    const LessonCheck check = checkLessonFolder(path);
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
    const Scenario lesson = loadLessonFolder(path);
    const std::vector<NamedRunConfig> runs = scenarioRunConfigs(lesson, overrides);
    // Decided on the configs as they will run (--set included), before any run starts.
    for (const NamedRunConfig& run : runs) {
        if (trustModel || run.config.model.name != "torchscript") continue;
        const std::string& model = run.config.model.path;
        throw InputError("lesson " + lesson.name + ", run " + run.name + ": model.path " + model +
                         " is a TorchScript model (SHA-256 " + sha256OfFile(model) +
                         "), which runs code as you: pass --trust-model to load it");
    }
    return runScenarioHeadless(lesson, runs, outDirectory, out, err, quiet);
}

}  // namespace ampscope::app
