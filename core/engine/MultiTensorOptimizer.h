#pragma once
// INTERNAL (includes torch). The run's optimizer (sgd, adam, adamw) applied to all
// parameters at once with LibTorch's multi-tensor (_foreach_) operations.
//
// Why: torch::optim's C++ optimizers update one parameter at a time, about a
// dozen kernels each; on a GPU a model with dozens of parameter tensors then
// waits on kernel launches, where PyTorch's Python optimizers take their
// multi-tensor path. The arithmetic here is LibTorch's own, operation for
// operation (Adam: m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g*g;
// p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps); AdamW first multiplies p by
// 1 - lr*wd; SGD with momentum keeps buf = g at its first step, then
// buf = momentum*buf + g), so on the CPU the weights equal torch::optim's bit for
// bit (test_multi_tensor_optimizer).
//
// Like torch::optim, a parameter whose gradient is undefined is skipped and its
// step count does not advance; parameters are grouped by step count, device and
// dtype so that each group is one set of multi-tensor calls.
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "config/RunConfig.h"

namespace ampscope {

class MultiTensorOptimizer {
public:
    MultiTensorOptimizer(const OptimConfig& options, std::vector<torch::Tensor> parameters);

    // One update of every parameter that has a gradient.
    void step();

    // How many updates parameter i has had (Adam's t).
    int64_t stepCount(size_t i) const { return steps_.at(i); }

private:
    struct Group {
        std::vector<size_t> members;  // indices into parameters_
        int64_t step = 0;             // the members' step count after this update
    };
    std::vector<Group> groupsForThisStep() const;
    void adamStep(const Group& group);
    void sgdStep(const Group& group);

    OptimConfig options_;
    std::vector<torch::Tensor> parameters_;
    std::vector<int64_t> steps_;
    // Adam: first and second moments; SGD: the momentum buffer in firstMoment_.
    std::vector<torch::Tensor> firstMoment_;
    std::vector<torch::Tensor> secondMoment_;
};

}  // namespace ampscope
