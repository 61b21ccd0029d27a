#pragma once
// `ampscope-cli report`: the report renderer of the window (ui/report), offscreen. In a
// build without the GUI there is no renderer, and the command says so (exit 2).
#include <string>
#include <vector>

namespace ampscope::app {

// Returns the exit code: 0 written, 2 bad input (one line on stderr), 1 internal error.
// shownNames: what the report calls each run directory (the ssh:// address of a copy).
int runReportCommand(const std::vector<std::string>& runDirectories,
                     const std::vector<std::string>& shownNames, const std::string& outputPath,
                     bool quiet, int argc, char** argv);

}  // namespace ampscope::app
