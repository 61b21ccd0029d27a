#include "engine/Watchpoints.h"

namespace ampscope {

std::vector<std::string> watchpointsFired(const ProbeConfig& probes, const StepMetrics& step, bool scalerEnabled,
                                          const NonFiniteEvent* newFirstNonFinite, const ProbeSnapshot* snapshot) {
    std::vector<std::string> reasons;
    if (probes.pause_on_nonfinite && newFirstNonFinite)
        reasons.push_back("first non-finite value at " + newFirstNonFinite->layer + " (" + newFirstNonFinite->phase +
                          ", " + newFirstNonFinite->tensor + ")");
    if (probes.pause_overflow_above > 0 && snapshot)
        for (const auto& layer : snapshot->layers)
            if (layer.hasParameters && layer.gradClasses.overflowFraction() > probes.pause_overflow_above)
                reasons.push_back(layer.layer + ": " + std::to_string(layer.gradClasses.overflowFraction()) +
                                  " of the scaled gradient overflows fp16");
    if (probes.pause_scale_below > 0 && scalerEnabled && step.scaleAfter < probes.pause_scale_below)
        reasons.push_back("loss scale " + std::to_string(step.scaleAfter) + " fell below " +
                          std::to_string(probes.pause_scale_below));
    return reasons;
}

}  // namespace ampscope
