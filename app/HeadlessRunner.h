#pragma once
// Runs one Engine to its end without a window, printing progress: a progress
// bar with ETA on a terminal, plain lines otherwise. Shared by ampscope-cli and
// by ampscope's no-display path. SIGINT/SIGTERM stop the run cleanly (the
// run directory gets its summary with status "stopped").
#include <cstdio>
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "engine/RunSummary.h"

namespace ampscope::app {

struct HeadlessResult {
    RunSummary summary;
    bool inputError = false;  // the run failed on bad input (exit code 2)
    bool interrupted = false;
    std::string errorMessage;
};

// traceSteps: steps whose Chrome trace goes to the run directory (Engine::traceSteps);
// each is named at the end, with its file or as not reached.
HeadlessResult runHeadless(const RunConfig& config, const std::string& runDirectory, std::FILE* out,
                           bool quiet = false, const std::vector<int64_t>& traceSteps = {});

// Exit code per DESIGN.md: 0 finished (NaN included), 2 bad input, 1 internal
// error, 130 interrupted by the user.
int exitCodeFor(const HeadlessResult& result);

// One line per value, for the end of a run.
void printSummary(const RunSummary& summary, const std::string& runDirectory, std::FILE* out);

}  // namespace ampscope::app
