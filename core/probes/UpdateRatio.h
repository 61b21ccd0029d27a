#pragma once
// Plain (no torch). How much one optimizer step changed a layer's weights:
// |dw| / |w| with Frobenius norms over all of the layer's parameters (w before
// the step, dw = w_after - w_before as stored), and, where the intended update
// is known, how many non-zero intended updates were lost to rounding: the
// stored weight did not change at all (in pure fp16, w + dw == w when |dw| is
// below half an ulp of w).
#include <cstdint>
#include <limits>
#include <string>

namespace ampscope {

struct LayerUpdateRatio {
    std::string layer;
    int64_t layerIndex = 0;
    double weightNorm = 0.0;  // |w_before|
    double updateNorm = 0.0;  // |w_after - w_before|
    // updateNorm / weightNorm; 0 when nothing moved, +inf for a zero weight that
    // moved, NaN when a norm is not finite.
    double ratio = 0.0;
    int64_t numel = 0;
    // -1 when no intended update was given (only the stored change is known).
    int64_t intendedNonZero = -1;  // elements whose intended update was non-zero
    int64_t lost = -1;             // of those, elements whose stored weight did not change

    bool measuredLoss() const { return intendedNonZero >= 0; }
    // lost / intendedNonZero; 0 when nothing was intended; NaN when not measured.
    double lostFraction() const {
        if (!measuredLoss()) return std::numeric_limits<double>::quiet_NaN();
        return intendedNonZero > 0
                   ? static_cast<double>(lost) / static_cast<double>(intendedNonZero)
                   : 0.0;
    }
};

// The ratio rule above, shared by the probe and by readers that rebuild it.
double updateRatioOf(double updateNorm, double weightNorm);

}  // namespace ampscope
