#pragma once
// Plain (no torch). How the scales of the scaled formats are chosen, one
// function per rule; the tensor quantizers apply them per tensor or per block.
//
// - Per-tensor fp8 (Transformer Engine's recipes): scale = maxFinite / amax / 2^margin,
//   values are multiplied by the scale before the cast and by 1/scale after.
//   Current scaling takes amax from the tensor itself; delayed scaling from an
//   amax history (DelayedScaling below). An amax of 0 or not finite keeps the
//   previous scale (1 at first), as Transformer Engine does.
// - MX blocks (OCP Microscaling Formats (MX) v1.0): one power of two X = 2^e per
//   block of 32. `floor` (the specification's rule): e = floor(log2 amax) - emax_elem
//   with emax_elem the exponent of the element format's largest value (8 for e4m3,
//   15 for e5m2, 2 for e2m1); elements above maxFinite * X then saturate. `rceil`:
//   the smallest power of two with amax / X <= maxFinite, so nothing saturates.
//   e is clamped to e8m0's range [-127, 127]; an all-zero block takes -127.
// - NVFP4 (Transformer Engine's NVFP4 recipe): blocks of 16 e2m1 elements, an e4m3
//   scale per block and an fp32 scale per tensor: s_tensor = amax / (448 * 6),
//   s_block = e4m3(block_amax / 6 / s_tensor); elements are x / (s_block * s_tensor).
#include <cstdint>
#include <deque>

#include "precision/formats/FormatTable.h"

namespace ampscope {

// Per-tensor fp8: the scale for a tensor whose amax is `amax`, or `previous`
// when amax is 0 or not finite. Computed in fp32 as the recipes do.
float perTensorScale(float amax, NumberFormat format, int margin = 0, float previous = 1.0f);

enum class MxScaleRule { Floor, Rceil };

inline constexpr int kMxBlockSize = 32;
inline constexpr int kNvfp4BlockSize = 16;
inline constexpr int kE8m0MinExponent = -127;
inline constexpr int kE8m0MaxExponent = 127;

// The exponent e of an MX block's scale 2^e for a finite block amax >= 0.
int mxScaleExponent(double amax, NumberFormat element, MxScaleRule rule);

// NVFP4's fp32 tensor scale for a tensor amax (1 when amax is 0 or not finite).
float nvfp4TensorScale(float amax);

// Transformer Engine's DelayedScaling: the scale used for a tensor comes from the
// amaxes of the tensors seen before it (a history of `historyLength`), combined by
// `max` or `most_recent`; the tensor's own amax joins the history after it is cast.
class DelayedScaling {
public:
    enum class AmaxCompute { Max, MostRecent };
    DelayedScaling(NumberFormat format, int historyLength = 1024, AmaxCompute compute = AmaxCompute::Max,
                   int margin = 0);

    // The scale for the next tensor, and the amax it was computed from (0: none yet).
    float scale() const { return scale_; }
    float scaleAmax() const { return scaleAmax_; }
    // Records a tensor's amax and updates the scale for the next one.
    void record(float amax);
    int historySize() const { return static_cast<int>(history_.size()); }

private:
    NumberFormat format_;
    int historyLength_;
    AmaxCompute compute_;
    int margin_;
    std::deque<float> history_;
    float scale_ = 1.0f;
    float scaleAmax_ = 0.0f;
};

}  // namespace ampscope
