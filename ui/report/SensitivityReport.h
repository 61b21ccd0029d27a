#pragma once
// The report's section "What each layer costs in each format", from the mean of the run's
// sensitivity passes (probes.sensitivity_every; probes/SensitivityRecord.h): a table,
// layer x format, of the score, rows in the Sensitivity dock's order (largest score
// first), each cell shaded on the same logarithmic scale from the smallest non-zero score
// to the largest; 0 (the format rounds nothing there) unshaded and marked. Empty for a run
// without sensitivity records: the section is left out.
#include <QString>

#include "report/ReportRun.h"

namespace ampscope::ui::report_text {

QString sensitivityHtml(const ReportRun& run);

}  // namespace ampscope::ui::report_text
