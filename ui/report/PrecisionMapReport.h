#pragma once
// The report's section "Where precision is lost", from the run's last precision_map
// record (probes/PrecisionMapRecord.h): what was compared, the first op past the
// tolerance, the ten ops that add the most error, and per layer the error entering and
// leaving it, forward and backward. A note saying how to take a map when the run has none.
#include <QString>

#include "report/ReportRun.h"

namespace ampscope::ui::report_text {

QString precisionMapHtml(const ReportRun& run);

}  // namespace ampscope::ui::report_text
