#pragma once
// ampscope-cli sensitivity: trains a config briefly and measures what quantizing each
// matmul/conv layer alone in each format costs the loss (engine/SensitivityScan.h).
#include <cstdio>

#include "CliArguments.h"

namespace ampscope::app {

// Exit code: 0, or an InputError for bad input (the caller prints it, exit 2).
int runSensitivityCommand(const CliRequest& request, std::FILE* out, std::FILE* err);

}  // namespace ampscope::app
