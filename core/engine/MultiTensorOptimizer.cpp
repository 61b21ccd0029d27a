#include "engine/MultiTensorOptimizer.h"

#include <cmath>
#include <utility>

namespace ampscope {

MultiTensorOptimizer::MultiTensorOptimizer(const OptimConfig& options, std::vector<torch::Tensor> parameters)
    : options_(options),
      parameters_(std::move(parameters)),
      steps_(parameters_.size(), 0),
      firstMoment_(parameters_.size()),
      secondMoment_(parameters_.size()) {}

std::vector<MultiTensorOptimizer::Group> MultiTensorOptimizer::groupsForThisStep() const {
    // Usually one group: every parameter has a gradient every step and shares one
    // device and dtype. Kept-fp32 layers in a pure mode, or parameters a model's
    // forward skipped, make more.
    std::vector<Group> groups;
    for (size_t i = 0; i < parameters_.size(); ++i) {
        const auto& p = parameters_[i];
        if (!p.grad().defined()) continue;
        const int64_t step = steps_[i] + 1;
        Group* match = nullptr;
        for (auto& g : groups) {
            const auto& first = parameters_[g.members.front()];
            if (g.step == step && first.device() == p.device() && first.scalar_type() == p.scalar_type()) {
                match = &g;
                break;
            }
        }
        if (!match) {
            groups.push_back(Group{{}, step});
            match = &groups.back();
        }
        match->members.push_back(i);
    }
    return groups;
}

void MultiTensorOptimizer::step() {
    torch::NoGradGuard noGrad;
    for (const auto& group : groupsForThisStep()) {
        if (options_.name == "sgd")
            sgdStep(group);
        else
            adamStep(group);
        for (size_t i : group.members) steps_[i] = group.step;
    }
}

void MultiTensorOptimizer::adamStep(const Group& group) {
    std::vector<torch::Tensor> params, grads, m, v;
    for (size_t i : group.members) {
        auto& p = parameters_[i];
        if (!firstMoment_[i].defined()) {
            firstMoment_[i] = torch::zeros_like(p, torch::MemoryFormat::Preserve);
            secondMoment_[i] = torch::zeros_like(p, torch::MemoryFormat::Preserve);
        }
        params.push_back(p);
        grads.push_back(p.grad());
        m.push_back(firstMoment_[i]);
        v.push_back(secondMoment_[i]);
    }
    const double lr = options_.lr, beta1 = options_.beta1, beta2 = options_.beta2;
    const double decay = options_.weight_decay;
    if (decay != 0.0) {
        if (options_.name == "adamw")
            at::_foreach_mul_(params, 1.0 - lr * decay);  // decoupled: the weights shrink
        else
            grads = at::_foreach_add(grads, params, decay);  // L2: the gradient gains wd*p
    }
    const double t = static_cast<double>(group.step);
    const double biasCorrection1 = 1.0 - std::pow(beta1, t);
    const double biasCorrection2 = 1.0 - std::pow(beta2, t);
    at::_foreach_mul_(m, beta1);
    at::_foreach_add_(m, grads, 1.0 - beta1);
    at::_foreach_mul_(v, beta2);
    at::_foreach_addcmul_(v, grads, grads, 1.0 - beta2);
    auto denominators = at::_foreach_sqrt(v);
    at::_foreach_div_(denominators, std::sqrt(biasCorrection2));
    at::_foreach_add_(denominators, options_.eps);
    at::_foreach_addcdiv_(params, m, denominators, -lr / biasCorrection1);
}

void MultiTensorOptimizer::sgdStep(const Group& group) {
    std::vector<torch::Tensor> params, grads;
    for (size_t i : group.members) {
        params.push_back(parameters_[i]);
        grads.push_back(parameters_[i].grad());
    }
    if (options_.weight_decay != 0.0) grads = at::_foreach_add(grads, params, options_.weight_decay);
    if (options_.momentum != 0.0) {
        // The buffer starts as the first gradient itself (no dampening at step 1).
        std::vector<torch::Tensor> buffers;
        const bool first = !firstMoment_[group.members.front()].defined();
        for (size_t k = 0; k < group.members.size(); ++k) {
            auto& buffer = firstMoment_[group.members[k]];
            if (first) buffer = grads[k].clone().detach();
            buffers.push_back(buffer);
        }
        if (!first) {
            at::_foreach_mul_(buffers, options_.momentum);
            at::_foreach_add_(buffers, grads, 1.0);
        }
        grads = buffers;
    }
    at::_foreach_add_(params, grads, -options_.lr);
}

}  // namespace ampscope
