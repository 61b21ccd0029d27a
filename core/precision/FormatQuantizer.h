#pragma once
// INTERNAL (includes torch). The rounding points of the low-precision format modes
// (fp8, mxfp8, mxfp4, nvfp4): what a LayerCompute slot does when it holds a format
// instead of a plain Rounding, and what one point keeps from step to step.
//
// A point is a layer x operand (input, weight, output) x direction (forward values,
// backward gradients): the RoundingTag's layer and operand, and the slot it fills.
// Delayed scaling needs the amaxes of the point's earlier tensors, so each point
// owns its DelayedScaling, created at its first tensor and kept across steps.
#include <optional>

#include <torch/torch.h>

#include "precision/BlockLayout.h"
#include "precision/Rounding.h"
#include "precision/formats/QuantizationStats.h"
#include "precision/formats/ScalingRules.h"

namespace ampscope {

enum class FormatRecipe { None, CurrentScaling, DelayedScaling, Mx, Nvfp4 };

// How one slot fake-quantizes (TensorQuantizers.h does the work).
struct FormatQuantizer {
    FormatRecipe recipe = FormatRecipe::None;
    NumberFormat element = NumberFormat::E4M3;  // per-tensor and MX: the element format
    int margin = 0;                             // per-tensor: scale = max / amax / 2^margin
    int amaxHistoryLength = 1024;               // delayed scaling
    DelayedScaling::AmaxCompute amaxCompute = DelayedScaling::AmaxCompute::Max;
    MxScaleRule mxRule = MxScaleRule::Floor;
    bool stochastic = false;  // stochastic rounding of the elements (the policy's generator)

    bool none() const { return recipe == FormatRecipe::None; }
    bool operator==(const FormatQuantizer&) const = default;
};

// "delayed", "current", "mx", "nvfp4" ("" for none), as the probe records spell them.
const char* formatRecipeName(FormatRecipe recipe);

// One point across steps.
struct FormatPointState {
    std::optional<DelayedScaling> delayed;
};

// Both directions of one tag: forward quantizes the values, backward the gradient
// arriving at them.
struct FormatPoints {
    FormatPointState forward;
    FormatPointState backward;
};

// Fake-quantizes x (fp32 in, fp32 out) at one point. `advance`: the tensor's amax joins
// delayed scaling's history (training steps do; evaluation uses the scale and leaves
// the history as it is). state is required by delayed scaling; generator by stochastic
// rounding. stats, when given, receives the measurements of QuantizationStats.h.
torch::Tensor quantizeAtPoint(const torch::Tensor& x, const FormatQuantizer& quantizer,
                              FormatPointState* state, bool advance, at::Generator* generator,
                              QuantizationStats* stats = nullptr, BlockLayout layout = BlockLayout::LastDim);

// Autograd-aware, as roundWithGradient: the forward quantizes the values with
// `forward`, the backward quantizes the incoming gradient with `backward` (either may
// be none). points, generator and tag must outlive the graph (the policy owns them);
// a tag with an observer is told the statistics of both quantizations.
// `layout` places the blocks of both: the values and the gradient have the same shape,
// and for each the tensor's reduction dimension is the same one (a conv's channels).
torch::Tensor quantizeWithGradient(const torch::Tensor& values, const FormatQuantizer& forward,
                                   const FormatQuantizer& backward, FormatPoints* points,
                                   at::Generator* generator, const RoundingTag* tag = nullptr,
                                   BlockLayout layout = BlockLayout::LastDim);

}  // namespace ampscope
