#pragma once
// ampscope-cli precision-map: trains a config to the step asked for, maps that step
// (probes.precision_map_steps, PrecisionMapRun), writes the map's CSV next to the run
// directory's events and prints the map in words (PrecisionMapText.h).
#include <cstdio>

#include "CliArguments.h"

namespace ampscope::app {

// The exit code (HeadlessRunner's rules). A step the run never reaches is an InputError
// naming --step.
int runPrecisionMapCommand(const CliRequest& request, std::FILE* out, std::FILE* err);

}  // namespace ampscope::app
