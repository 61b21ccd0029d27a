#pragma once
// Runs a built-in scenario (or a teacher's lesson) headless: its narrative first (what to look at), then
// each run one after another into OUT/<run-name>/ (a one-run scenario records
// straight into OUT), each ending with its summary; a scenario with several runs
// ends with the side-by-side table (core/scenarios/ComparisonTable.h), which is also
// written to OUT/comparison.txt. Shared by ampscope-cli and ampscope's headless path
// (whose default comparison is the default scenario, kDefaultScenario).
#include <cstdio>
#include <string>
#include <vector>

#include "scenarios/ScenarioCatalogue.h"

namespace ampscope::app {

// One line per scenario: "name  summary".
void printScenarioList(std::FILE* out);

// Returns the exit code (DESIGN.md): the first run that fails or is interrupted ends
// the scenario with its code; 0 when every run finished (NaN runs included). An
// unknown name or a bad override is an InputError (exit 2) before anything runs.
// `program` starts the error line ("ampscope-cli: scenario ...: ...").
int runScenarioHeadless(const std::string& name, const std::string& outDirectory,
                        const std::vector<std::string>& overrides, std::FILE* out, std::FILE* err,
                        bool quiet = false, const char* program = "ampscope-cli");
// The same for a scenario already read, built in or a lesson folder's (LessonFolder.h),
// with its runs' configs (scenarioRunConfigs, overrides applied).
int runScenarioHeadless(const Scenario& scenario, const std::vector<NamedRunConfig>& runs,
                        const std::string& outDirectory, std::FILE* out, std::FILE* err, bool quiet = false,
                        const char* program = "ampscope-cli");

}  // namespace ampscope::app
