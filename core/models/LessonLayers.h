#pragma once
// INTERNAL (includes torch). Layers written by hand the way user code often is, so
// that the teaching scenarios can show where such code breaks in low precision.
// Each rounds its intermediate values as the hardware would hold them:
//
// - HalfStatsBatchNormLayer: a BatchNorm over [B, F] whose batch statistics are
//   computed with plain tensor ops (mean, x - mean, d * d, sqrt, divide). None of
//   these is on autocast's fp32 list, so under fp16 autocast they run in the input's
//   precision (fp16 after a matmul); eps is 1e-12 (BERT's LayerNorm value), which
//   fp16 cannot hold (it rounds to 0). When the squared deviations flush to zero the
//   variance is 0 and the normalisation divides by zero. nn.BatchNorm computes its
//   statistics in fp32 and uses eps 1e-5; this layer is what a port of fp32 code
//   with a tiny eps looks like.
// - ManualSoftmaxLayer: log(exp(z) / sum(exp(z))) written out, without subtracting
//   the max. Under autocast exp and sum are promoted to fp32 (they are on autocast's
//   fp32 list), so it only breaks where nothing is promoted: pure fp16 (model.half()).
//   There exp(z) overflows to inf for z > ~11.09 and inf / inf is NaN.
// - LibrarySoftmaxLayer: torch::log_softmax, which subtracts the row max (so exp never
//   overflows) and which autocast runs in fp32.
// - ScaleLayer: multiplies by a constant (a logit scale / inverse temperature).
#include <string>

#include <torch/torch.h>

#include "models/Layer.h"

namespace ampscope {

class HalfStatsBatchNormLayer : public Layer {
public:
    static constexpr double kEps = 1e-12;
    static constexpr double kMomentum = 0.1;

    explicit HalfStatsBatchNormLayer(int64_t features);
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;

private:
    int64_t features_;
    torch::Tensor weight_, bias_;
    torch::Tensor runningMean_, runningVar_;
};

class ManualSoftmaxLayer : public Layer {
public:
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override { return "log(exp(z) / sum exp(z)), written by hand"; }
};

class LibrarySoftmaxLayer : public Layer {
public:
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override { return "log_softmax (library: max subtracted)"; }
};

class ScaleLayer : public Layer {
public:
    explicit ScaleLayer(double factor) : factor_(factor) {}
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;

private:
    double factor_;
};

}  // namespace ampscope
