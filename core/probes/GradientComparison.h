#pragma once
// Plain (no torch). One layer's parameter gradients g (the run under test)
// against reference gradients s of the same step: the fp32 shadow's, or the
// lock-step partner's. GradientComparisonProbe.h computes it.
#include <cstdint>
#include <string>

namespace ampscope {

struct GradientComparison {
    std::string layer;
    // ||g - s|| / ||s|| over the layer's parameters (weight and bias together);
    // 0 when both are zero, +inf when only s is; NaN when g is not finite.
    double relError = 0.0;
    // <g, s> / (||g|| ||s||); 1 when both are zero, 0 when exactly one is.
    double cosine = 1.0;
    int64_t lost = 0;      // elements with s != 0 and g == 0 (flushed by g's precision)
    int64_t nonzero = 0;   // elements with s != 0
    int64_t elements = 0;  // all elements of the layer's parameters
};

}  // namespace ampscope
