#pragma once
// INTERNAL (includes torch). Fake quantization: fp32 in, the values the
// format would hold (dequantized) out, fp32, same shape, with the statistics of
// QuantizationStats.h. ScalarCodec.h is the reference both paths below are tested
// against bit for bit (tests/core/precision/test_formats.cpp).
//
// Element rounding is the scalar codec's: nearest even (or stochastic), overflow
// saturating by default. Blocks (MX: 32, NVFP4: 16) run along the dimension `layout`
// names (BlockLayout.h: the last by default; the format modes pass each operand's
// reduction dimension); a run that is not a multiple of the block is padded with
// zeros (which change no block's amax). The values come back in x's own layout.
//
// On the CPU (fp32 data, saturating) the single passes of CpuQuantizeLoops.h do the
// work, with their counts where statistics are asked for; elsewhere vectorised torch
// ops do. A block holding NaN or Inf decodes to NaN throughout (the MX
// specification's rule for a NaN scale); per-tensor formats keep NaN as NaN and
// saturate Inf like any overflow.
//
// Stochastic rounding (options.generator set) draws one uniform per element of
// the input, torch::rand(x.numel(), generator), in the order of the tensor with its
// blocks' dimension last, and rounds the elements with it; scales are always rounded
// to nearest. The CPU passes draw the same values a slab of the tensor at a time into
// one small buffer (not one fp32 per element), leaving the generator where one
// torch::rand of the whole tensor leaves it.
//
// Statistics (collectStats; probe steps) come from the same passes, read where the
// blocks lie; their double sums are added in fixed chunks of the tensor with its
// blocks' dimension last, so they do not depend on the thread count or the layout.
#include <optional>

#include <torch/torch.h>

#include "precision/BlockLayout.h"
#include "precision/formats/QuantizationStats.h"
#include "precision/formats/ScalarCodec.h"
#include "precision/formats/ScalingRules.h"

namespace ampscope {

struct QuantizeOptions {
    OverflowPolicy overflow = OverflowPolicy::Saturate;
    std::optional<at::Generator> generator;  // set: stochastic rounding of the elements
    bool collectStats = true;
    // false: the vectorised torch ops even where the CPU passes could run (what other
    // devices run; the tests compare the two).
    bool cpuPasses = true;
    // Set: the CPU passes write the values here (a contiguous fp32 CPU tensor of x's
    // number of elements) instead of a new tensor, and QuantizedTensor::values is this
    // buffer shaped as x, overwritten by its next use. For callers that keep only the
    // statistics: the format sweep measures seven formats through one buffer, where
    // seven new tensors of an activation's size were seven times its memory at once and,
    // the first time a size comes, seven times its pages faulted in. The torch ops
    // ignore it.
    torch::Tensor scratch;
};

struct QuantizedTensor {
    torch::Tensor values;  // dequantized, fp32
    QuantizationStats stats;
};

// The elements rounded to `format` without any scale (fp16, bf16, e4m3, e5m2,
// e2m1; not e8m0). uniforms: empty for nearest, else one draw per element.
// overflowed (optional out): finite elements that rounded past maxFinite.
torch::Tensor roundElements(const torch::Tensor& values, NumberFormat format, OverflowPolicy overflow,
                            const torch::Tensor& uniforms = {}, torch::Tensor* overflowed = nullptr);

// The largest |x| over x's finite elements (0 when there are none): current scaling's amax.
float finiteAbsMax(const torch::Tensor& x);

// Plain cast to a format (no scale): what fp16/bf16 casts do to a tensor.
QuantizedTensor quantizeUnscaled(const torch::Tensor& x, NumberFormat format, const QuantizeOptions& options = {});

// Per-tensor fp8 with a given scale: values * scale, cast, times 1/scale.
// stats.scaleAmax is left for the caller (the amax the scale came from).
QuantizedTensor quantizeWithScale(const torch::Tensor& x, NumberFormat format, float scale,
                                  const QuantizeOptions& options = {});
// Current scaling: the scale from the tensor's own amax.
QuantizedTensor quantizeCurrentScaling(const torch::Tensor& x, NumberFormat format, int margin = 0,
                                       const QuantizeOptions& options = {});
// Delayed scaling: the scale from the history; the tensor's amax joins it after.
QuantizedTensor quantizeDelayedScaling(const torch::Tensor& x, DelayedScaling& scaling,
                                       NumberFormat format, const QuantizeOptions& options = {});

// MXFP8 (element e4m3 or e5m2) and MXFP4 (e2m1): blocks of 32, e8m0 scales.
QuantizedTensor quantizeMx(const torch::Tensor& x, NumberFormat element, MxScaleRule rule,
                           const QuantizeOptions& options = {}, BlockLayout layout = BlockLayout::LastDim);

// NVFP4: blocks of 16 e2m1 elements, e4m3 block scales, an fp32 tensor scale.
QuantizedTensor quantizeNvfp4(const torch::Tensor& x, const QuantizeOptions& options = {},
                              BlockLayout layout = BlockLayout::LastDim);

}  // namespace ampscope
