// The report command in a build without the GUI (-DAMPSCOPE_BUILD_GUI=OFF): the report
// is drawn by the window's views, which this build does not have.
#include <cstdio>

#include "ReportCommand.h"

namespace ampscope::app {

int runReportCommand(const std::vector<std::string>&, const std::vector<std::string>&, const std::string&,
                     bool, int, char**) {
    std::fprintf(stderr,
                 "ampscope-cli: report: this build has no report renderer (built with "
                 "AMPSCOPE_BUILD_GUI=OFF); use export-csv, or a build with the GUI\n");
    return 2;
}

}  // namespace ampscope::app
