#include "SeedRuns.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "HeadlessRunner.h"
#include "common/InputError.h"
#include "common/Text.h"
#include "engine/SystemInfo.h"
#include "run/EventSchema.h"
#include "run/RunNaming.h"
#include "stats/SeedBand.h"

namespace ampscope::app {
namespace {

constexpr const char* kSeedBandFileName = "seed-band.txt";

std::string cell(double value) { return std::isfinite(value) ? formatNumber(value, 6) : "-"; }

}  // namespace

// Refused before anything is created: a folder holding anything else would mix that
// into the set (or be read as one run, if it holds a config.json).
void requireNewOrEmptyFolder(const std::string& directory) {
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::file_status status = fs::status(directory, error);
    if (!fs::exists(status)) return;
    if (!fs::is_directory(status)) throw InputError(directory + ": exists and is not a directory");
    if (!fs::is_empty(directory, error) || error)
        throw InputError(directory + ": not empty; a set of runs goes in a new or empty folder (choose another --out)");
}

std::string formatSeedBand(const std::string& runName, const std::vector<SeedRunResult>& runs) {
    std::string text = "seed band of " + std::to_string(runs.size()) + " runs of " + runName + "\n";
    text += std::string("band: ") + stats::kSeedBandRule + "\n\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-10s %-20s %-10s %-12s %-12s %-12s\n", "run", "seed", "status",
                  "train loss", "val loss", "val accuracy");
    text += line;
    std::vector<double> train, loss, accuracy;
    for (const SeedRunResult& run : runs) {
        std::snprintf(line, sizeof line, "%-10s %-20llu %-10s %-12s %-12s %-12s\n", run.directory.c_str(),
                      static_cast<unsigned long long>(run.seed), run.summary.status.c_str(),
                      cell(run.summary.finalTrainLoss).c_str(), cell(run.summary.valLoss).c_str(),
                      cell(run.summary.valAccuracy).c_str());
        text += line;
        train.push_back(run.summary.finalTrainLoss);
        loss.push_back(run.summary.valLoss);
        accuracy.push_back(run.summary.valAccuracy);
    }
    std::snprintf(line, sizeof line, "\n%-14s %-6s %-12s %-12s %-12s %-12s\n", "", "seeds", "mean", "sd",
                  "band low", "band high");
    text += line;
    const std::pair<const char*, const std::vector<double>*> rows[] = {
        {"train loss", &train}, {"val loss", &loss}, {"val accuracy", &accuracy}};
    for (const auto& [name, values] : rows) {
        const stats::SampleSummary s = stats::summarize(*values);
        const stats::BandInterval band = stats::bandOf(s);
        std::snprintf(line, sizeof line, "%-14s %-6d %-12s %-12s %-12s %-12s\n", name, s.count, cell(s.mean).c_str(),
                      cell(s.sd).c_str(), cell(band.low).c_str(), cell(band.high).c_str());
        text += line;
    }
    return text;
}

int trainSeeds(const RunConfig& config, const SeedSetLayout& layout, std::FILE* out, std::FILE* err, bool quiet,
               std::vector<SeedRunResult>& results) {
    for (int k = 1; k <= layout.seeds; ++k) {
        const RunConfig run = seedRunConfig(config, layout.runName, k);
        const std::string folder = seedRunFolder(layout.prefix, k);
        const std::string directory = layout.outDirectory + "/" + folder;
        if (!quiet)
            std::fprintf(out, "%s== %sseed %d/%d: seed %llu -> %s ==\n", results.empty() ? "" : "\n",
                         layout.prefix.c_str(), k, layout.seeds, static_cast<unsigned long long>(run.seed),
                         directory.c_str());
        // Runs share the process: without the reset each would report the largest peak so far.
        resetPeakResidentBytes();
        const HeadlessResult result = runHeadless(run, directory, out, quiet, layout.traceSteps);
        if (result.summary.status == run_status::kError) {
            std::fprintf(err, "ampscope-cli: %s: %s\n", directory.c_str(),
                         result.errorMessage.empty() ? result.summary.error.c_str() : result.errorMessage.c_str());
            return exitCodeFor(result);
        }
        if (!quiet) printSummary(result.summary, directory, out);
        if (result.interrupted) return exitCodeFor(result);
        results.push_back({folder, run.seed, result.summary});
    }
    return 0;
}

int runSeedSetHeadless(const RunConfig& config, int seeds, const std::string& outDirectory,
                       const std::vector<int64_t>& traceSteps, std::FILE* out, std::FILE* err, bool quiet) {
    requireNewOrEmptyFolder(outDirectory);
    const std::string name = runName(config);
    std::vector<SeedRunResult> results;
    const SeedSetLayout layout{outDirectory, "", name, seeds, traceSteps};
    if (const int code = trainSeeds(config, layout, out, err, quiet, results); code != 0) return code;
    const std::string band = formatSeedBand(name, results);
    const std::string path = outDirectory + "/" + kSeedBandFileName;
    std::ofstream file(path);
    file << band;
    if (!file) throw InputError(path + ": cannot write");
    if (!quiet) std::fprintf(out, "\n%s\nseed band: %s\n", band.c_str(), path.c_str());
    return 0;
}

}  // namespace ampscope::app
