#pragma once
// INTERNAL (includes torch). One named layer of a LayeredModel. A layer that
// does a matmul or conv passes its operands through compute.input()/weight() and its
// result through compute.result(), so emulated precision modes can round there
// (and only there), exactly where real fp16 autocast would hold fp16.
#include <string>

#include <torch/torch.h>

#include "precision/ComputePolicy.h"

namespace ampscope {

class Layer : public torch::nn::Module {
public:
    virtual torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) = 0;
    // Short description for layer lists: "Conv2d 1->64 3x3 pad 1".
    virtual std::string describe() const = 0;
    // Does the layer hold a matmul/conv (a point where fp16 autocast casts)?
    virtual bool hasMatmul() const { return false; }
};

using LayerPtr = std::shared_ptr<Layer>;

}  // namespace ampscope
