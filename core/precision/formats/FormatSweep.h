#pragma once
// INTERNAL (includes torch). The format sweep: one fp32 tensor measured
// against every format at once, each in the way it is used for training:
//   fp16, bf16   plain casts (no scale), saturating, so an overflow counts as
//                saturated instead of turning the SNR into -inf
//   e4m3, e5m2   per-tensor current scaling (scale = max / amax)
//   mxfp8        MX blocks of 32, e4m3 elements, e8m0 scales by the `floor` rule
//   mxfp4        MX blocks of 32, e2m1 elements, `floor`
//   nvfp4        blocks of 16, e2m1 elements, e4m3 block scales, fp32 tensor scale
// Round to nearest even throughout. Fractions are of all the tensor's elements. The
// block formats' blocks run along `layout` (the tensor's reduction dimension), as
// the format modes place them.
#include <vector>

#include <torch/torch.h>

#include "precision/BlockLayout.h"
#include "precision/formats/FormatSweepRow.h"

namespace ampscope {

// The rows in the order above.
std::vector<FormatSweepRow> sweepFormats(const torch::Tensor& values, BlockLayout layout = BlockLayout::LastDim);

}  // namespace ampscope
