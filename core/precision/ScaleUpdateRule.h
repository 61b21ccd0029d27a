#pragma once
// The loss-scale update rule of torch.amp.GradScaler, exactly as PyTorch's
// _amp_update_scale_ kernel does it (plain C++, no torch):
//
//   if found_inf: scale = float(scale * backoff_factor); tracker = 0
//   else: s = tracker + 1
//         if s == growth_interval:               (==, not >=)
//             new = float(scale * growth_factor) (product in double, narrowed)
//             if isfinite(new): scale = new       (never grows past float's range)
//             tracker = 0
//         else: tracker = s
//
// The scale is held as a float, as PyTorch holds it in a float32 tensor.
#include <cstdint>

namespace ampscope {

struct ScaleUpdateRule {
    double growthFactor = 2.0;
    double backoffFactor = 0.5;
    int64_t growthInterval = 2000;
};

struct ScaleState {
    float scale = 65536.0f;
    int32_t growthTracker = 0;  // int32, as PyTorch's growth tracker tensor
};

enum class ScaleChange { None, Backoff, Growth };

// Applies one update; returns what happened to the scale.
ScaleChange applyScaleUpdate(ScaleState& state, const ScaleUpdateRule& rule, bool foundInf);

// 1/scale as unscale_ computes it: reciprocal in double, then narrowed to float.
float inverseScale(float scale);

}  // namespace ampscope
