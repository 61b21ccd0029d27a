// ampscope-cli: headless runs (DESIGN.md "Interfaces that must stay stable").
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "CliArguments.h"
#include "FormatCommands.h"
#include "HeadlessRunner.h"
#include "LessonCommands.h"
#include "PrecisionMapCommand.h"
#include "RequestedConfig.h"
#include "PrescribeCommand.h"
#include "SensitivityCommand.h"
#include "ScenarioRunner.h"
#include "SeedRuns.h"
#include "RemoteRunCopies.h"
#include "ReportCommand.h"
#include "common/BuildInfo.h"
#include "common/InputError.h"
#include "run/EventSchema.h"
#include "config/ConfigJson.h"
#include "engine/Versions.h"
#include "export/RunCsvExport.h"
#include "export/TfEventsExport.h"
#include "run/RunReader.h"

using namespace ampscope;

int main(int argc, char** argv) {
    try {
        const app::CliRequest request =
            app::parseCliArguments(std::vector<std::string>(argv + 1, argv + argc));
        switch (request.command) {
            case app::CliRequest::Command::Help:
                std::fputs(app::cliUsage(), stdout);
                return 0;
            case app::CliRequest::Command::Version:
                std::printf("ampscope-cli %s (git %s), %s\n", build::kVersion, build::kGitRevision,
                            libraryVersions().c_str());
                return 0;
            case app::CliRequest::Command::Formats:
                app::printFormatTable(stdout);
                return 0;
            case app::CliRequest::Command::Cast:
                app::printCasts(request, stdout);
                return 0;
            case app::CliRequest::Command::Scenarios:
                app::printScenarioList(stdout);
                return 0;
            case app::CliRequest::Command::CheckLesson:
                return app::checkLessonCommand(request.lesson, stdout, stderr);
            case app::CliRequest::Command::PackLesson:
                return app::packLessonCommand(request.lesson, request.outDirectory, stdout);
            case app::CliRequest::Command::Run: {
                if (!request.lesson.empty())
                    return app::runLessonCommand(request.lesson, request.outDirectory, request.overrides,
                                                 request.trustModel, request.quiet, stdout, stderr);
                if (!request.scenario.empty())
                    return app::runScenarioHeadless(request.scenario, request.outDirectory, request.overrides,
                                                    stdout, stderr, request.quiet);
                const RunConfig config = app::requestedConfig(request);
                if (request.seeds > 0)
                    return app::runSeedSetHeadless(config, request.seeds, request.outDirectory, request.traceSteps,
                                                   stdout, stderr, request.quiet);
                const auto result =
                    app::runHeadless(config, request.outDirectory, stdout, request.quiet, request.traceSteps);
                if (result.summary.status == run_status::kError) {
                    std::fprintf(stderr, "ampscope-cli: %s\n",
                                 result.errorMessage.empty() ? result.summary.error.c_str()
                                                             : result.errorMessage.c_str());
                } else if (!request.quiet) {
                    app::printSummary(result.summary, request.outDirectory, stdout);
                }
                return app::exitCodeFor(result);
            }
            case app::CliRequest::Command::PrecisionMap:
                return app::runPrecisionMapCommand(request, stdout, stderr);
            case app::CliRequest::Command::Sensitivity:
                return app::runSensitivityCommand(request, stdout, stderr);
            case app::CliRequest::Command::Prescribe:
                return app::runPrescribeCommand(request, stdout, stderr);
            case app::CliRequest::Command::Report: {
                const app::RemoteRunCopies runs(request.runDirectories, request.quiet, stdout);
                return app::runReportCommand(runs.local(), request.runDirectories, request.outDirectory,
                                             request.quiet, argc, argv);
            }
            case app::CliRequest::Command::ExportCsv: {
                // Streamed from disk: a long run is never held whole in memory.
                const app::RemoteRunCopies runs(request.runDirectories, request.quiet, stdout);
                CsvExportResult result;
                try {
                    result = exportRunCsv(runs.local().front(), request.outDirectory);
                } catch (const InputError& e) {
                    throw InputError(runs.shown(e.what()));
                }
                for (const auto& w : result.warnings)
                    std::fprintf(stderr, "ampscope-cli: warning: %s\n", w.c_str());
                if (!request.quiet)
                    for (const auto& [name, rows] : result.dataRows)
                        std::printf("%s/%s: %lld rows\n", request.outDirectory.c_str(),
                                    name.c_str(), static_cast<long long>(rows));
                return 0;
            }
            case app::CliRequest::Command::ExportTfEvents: {
                const app::RemoteRunCopies runs(request.runDirectories, request.quiet, stdout);
                TfEventsExportResult result;
                try {
                    result = exportRunTfEvents(runs.local().front(), request.outDirectory);
                } catch (const InputError& e) {
                    throw InputError(runs.shown(e.what()));
                }
                for (const auto& w : result.warnings)
                    std::fprintf(stderr, "ampscope-cli: warning: %s\n", w.c_str());
                if (!request.quiet)
                    std::printf("%s: %lld events (%lld scalars, %lld histograms)\n",
                                result.path.c_str(), static_cast<long long>(result.events),
                                static_cast<long long>(result.scalars),
                                static_cast<long long>(result.histograms));
                return 0;
            }
        }
    } catch (const InputError& e) {
        std::fprintf(stderr, "ampscope-cli: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ampscope-cli: internal error: %s\n", e.what());
        return 1;
    }
    return 1;
}
