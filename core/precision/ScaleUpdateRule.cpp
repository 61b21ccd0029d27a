#include "precision/ScaleUpdateRule.h"

#include <cmath>

namespace ampscope {

ScaleChange applyScaleUpdate(ScaleState& state, const ScaleUpdateRule& rule, bool foundInf) {
    if (foundInf) {
        state.scale = static_cast<float>(static_cast<double>(state.scale) * rule.backoffFactor);
        state.growthTracker = 0;
        return ScaleChange::Backoff;
    }
    const int64_t successful = static_cast<int64_t>(state.growthTracker) + 1;
    if (successful == rule.growthInterval) {
        const float grown = static_cast<float>(static_cast<double>(state.scale) * rule.growthFactor);
        state.growthTracker = 0;
        if (std::isfinite(grown)) {
            state.scale = grown;
            return ScaleChange::Growth;
        }
        return ScaleChange::None;
    }
    state.growthTracker = static_cast<int32_t>(successful);
    return ScaleChange::None;
}

float inverseScale(float scale) { return static_cast<float>(1.0 / static_cast<double>(scale)); }

}  // namespace ampscope
