#include "ScenarioRunner.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "HeadlessRunner.h"
#include "common/InputError.h"
#include "run/EventSchema.h"
#include "engine/SystemInfo.h"
#include "config/ConfigJson.h"
#include "scenarios/ComparisonTable.h"

namespace ampscope::app {

void printScenarioList(std::FILE* out) {
    size_t width = 0;
    for (const auto& scenario : builtInScenarios()) width = std::max(width, scenario.name.size());
    for (const auto& scenario : builtInScenarios())
        std::fprintf(out, "%-*s  %s\n", static_cast<int>(width), scenario.name.c_str(), scenario.summary.c_str());
}

int runScenarioHeadless(const std::string& name, const std::string& outDirectory,
                        const std::vector<std::string>& overrides, std::FILE* out, std::FILE* err, bool quiet,
                        const char* program) {
    const Scenario& scenario = scenarioNamed(name);
    return runScenarioHeadless(scenario, scenarioRunConfigs(scenario, overrides), outDirectory, out, err, quiet,
                               program);
}

int runScenarioHeadless(const Scenario& scenario, const std::vector<NamedRunConfig>& runs,
                        const std::string& outDirectory, std::FILE* out, std::FILE* err, bool quiet,
                        const char* program) {
    // A lesson folder's scenario says so in what is printed (its name may be any word).
    const char* kind = scenario.folder.empty() ? "scenario" : "lesson";
    if (!quiet) std::fprintf(out, "%s %s: %s\n\n%s\n", kind, scenario.name.c_str(), scenario.summary.c_str(),
                             plainNarrative(scenario.narrative).c_str());
    if (scenario.comparesRuns()) {
        std::error_code ignored;
        std::filesystem::create_directories(outDirectory, ignored);
    }
    std::vector<ComparisonRow> rows;
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i];
        const std::string directory = scenario.comparesRuns() ? outDirectory + "/" + run.name : outDirectory;
        if (!quiet)
            std::fprintf(out, "\n== run %zu/%zu: %s -> %s ==\n", i + 1, runs.size(), run.name.c_str(),
                         directory.c_str());
        // Runs share the process: without the reset each would report the largest peak so far.
        resetPeakResidentBytes();
        const HeadlessResult result = runHeadless(run.config, directory, out, quiet);
        if (result.summary.status == run_status::kError) {
            std::fprintf(err, "%s: %s %s, run %s: %s\n", program, kind, scenario.name.c_str(), run.name.c_str(),
                         result.errorMessage.empty() ? result.summary.error.c_str() : result.errorMessage.c_str());
            return exitCodeFor(result);
        }
        if (!quiet) printSummary(result.summary, directory, out);
        if (result.interrupted) return exitCodeFor(result);
        rows.push_back({run.name, result.summary, configToJson(run.config)});
    }
    if (scenario.comparesRuns()) {
        const std::string table = formatComparisonTable(rows);
        std::fprintf(out, "\n%s %s, side by side:\n%s", kind, scenario.name.c_str(), table.c_str());
        std::ofstream(outDirectory + "/comparison.txt") << table;
    }
    return 0;
}

}  // namespace ampscope::app
