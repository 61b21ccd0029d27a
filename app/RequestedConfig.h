#pragma once
// The config a command line asks for: CONFIG.json with its --set overrides applied, as
// `run`, `precision-map` and `sensitivity` read it. A bad file or override is an
// InputError naming the file.
#include "CliArguments.h"
#include "config/RunConfig.h"

namespace ampscope::app {

RunConfig requestedConfig(const CliRequest& request);

}  // namespace ampscope::app
