#pragma once
// `ampscope-cli run CONFIG.json --seeds N --out DIR`: the same config trained with N seeds,
// one after another, as one set: DIR/seed-K/ per run (K = 1..N; seed K is the config's
// seed + K - 1, recorded in that run's config.json, and the run is named "<name> seed S"),
// the layout a scenario's folder has, so `report DIR` and the window open DIR as a set
// (core/run/RunSetFolder.h). The seed drives every random stream of a run: initial
// weights, batch order, and the data's own draws (hold-out split, subset, synthetic
// samples), so the band holds all of that noise.
//
// After the runs, DIR/seed-band.txt (plain text, like a scenario's comparison.txt): the
// band's rule (core/stats/SeedBand.h), each run's seed and final values (train loss,
// validation loss, validation accuracy), and for each value the seeds' mean, standard
// deviation and band. Printed to `out` as well.
//
// Contract: DIR must be new or an empty folder (InputError, exit 2, before anything is
// created: nothing recorded is overwritten, and a folder that already holds a run would be
// read as that run instead of the set). The first run that fails or is interrupted ends the
// set with its exit code, without seed-band.txt; a run whose loss went NaN is a finished
// run, and its non-finite values are left out of the band (the table shows the count).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "engine/RunSummary.h"

namespace ampscope::app {

struct SeedRunResult {
    std::string directory;  // "seed-K", relative to DIR
    uint64_t seed = 0;
    RunSummary summary;
};

// The text of seed-band.txt.
std::string formatSeedBand(const std::string& runName, const std::vector<SeedRunResult>& runs);

// DIR must be new or empty (InputError naming it otherwise).
void requireNewOrEmptyFolder(const std::string& directory);

// Where one config's seed runs go: outDirectory/<prefix>seed-K, run K named
// "<runName> seed S" (S = the config's seed + K - 1).
struct SeedSetLayout {
    std::string outDirectory;
    std::string prefix;  // "" for a seed set of its own; "reference-" beside other sets
    std::string runName;
    int seeds = 2;
    std::vector<int64_t> traceSteps;
};
// Trains the seeds one after another, appending each finished run to `results`; returns
// the exit code (DESIGN.md): 0 when every run finished, else the first failure's.
int trainSeeds(const RunConfig& config, const SeedSetLayout& layout, std::FILE* out, std::FILE* err, bool quiet,
               std::vector<SeedRunResult>& results);

// Returns the exit code (DESIGN.md): 0 when every run finished.
int runSeedSetHeadless(const RunConfig& config, int seeds, const std::string& outDirectory,
                       const std::vector<int64_t>& traceSteps, std::FILE* out, std::FILE* err, bool quiet);

}  // namespace ampscope::app
