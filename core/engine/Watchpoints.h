#pragma once
// Plain (no torch). The watchpoints a config sets (probes.pause_on_nonfinite,
// pause_overflow_above, pause_scale_below): after a step, the reason for each one that
// fired, in this order: the first non-finite value, each layer whose scaled gradient
// overflows fp16 beyond the threshold (probe steps only), the loss scale under its floor.
// Empty when none fired. The engine pauses before the next step and shows the last reason.
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "engine/ProbeSnapshot.h"
#include "engine/StepMetrics.h"
#include "probes/NonFiniteEvent.h"

namespace ampscope {

std::vector<std::string> watchpointsFired(const ProbeConfig& probes, const StepMetrics& step, bool scalerEnabled,
                                          const NonFiniteEvent* newFirstNonFinite, const ProbeSnapshot* snapshot);

}  // namespace ampscope
