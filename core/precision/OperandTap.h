#pragma once
// INTERNAL (includes torch). A RoundingObserver that may also replace what a layer's
// matmul/conv rounding points take in and hand on, forward. The sensitivity pass
// (engine/SensitivityPass.h) uses it to quantize one layer at a time in one forward:
// every layer's operands are swapped for the fp32 reference's, so each layer's error
// is its own, and every layer hands on the reference's output.
//
// LayerCompute's rounding (ComputePolicy.cpp) asks the tag's observer for this
// interface only when an observer is set, so steps without one pay nothing.
#include <torch/torch.h>

#include "precision/Rounding.h"

namespace ampscope {

class OperandTap : public RoundingObserver {
public:
    // Before the rounding at the tag's point: the tensor that is rounded instead.
    virtual torch::Tensor enter(const RoundingTag& tag, const torch::Tensor& values) = 0;
    // After it: the tensor the layer goes on with.
    virtual torch::Tensor leave(const RoundingTag& tag, const torch::Tensor& rounded) = 0;

    void beforeRounding(const RoundingTag&, bool, const torch::Tensor&, Rounding) override {}
};

}  // namespace ampscope
