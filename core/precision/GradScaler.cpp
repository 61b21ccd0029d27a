#include "precision/GradScaler.h"

namespace ampscope {

GradScaler::GradScaler(Kind kind, double initScale, const ScaleUpdateRule& rule)
    : kind_(kind), rule_(rule) {
    // PyTorch asserts these in GradScaler.__init__.
    if (!(rule.growthFactor > 1.0)) throw ScalerUsageError("The growth factor must be > 1.0.");
    if (!(rule.backoffFactor < 1.0)) throw ScalerUsageError("The backoff factor must be < 1.0.");
    state_.scale = static_cast<float>(initScale);
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const {
    if (!enabled()) return loss;
    // The scale is a float32 tensor in PyTorch: the product is taken in the loss's
    // dtype promoted with float32.
    return loss * torch::full({}, state_.scale, loss.options().dtype(torch::kFloat));
}

bool GradScaler::unscale(const std::vector<torch::Tensor>& parameters) {
    if (!enabled()) return false;
    if (stage_ == Stage::Unscaled)
        throw ScalerUsageError(
            "unscale_() has already been called on this optimizer since the last update().");
    if (stage_ == Stage::Stepped) throw ScalerUsageError("unscale_() is being called after step().");

    const float inverse = inverseScale(state_.scale);
    nonFinite_.assign(parameters.size(), false);
    std::vector<torch::Tensor> flags;
    flags.reserve(parameters.size());
    for (const auto& p : parameters) {
        const auto& g = p.grad();
        if (!g.defined()) continue;
        if (g.scalar_type() == torch::kHalf) throw ScalerUsageError("Attempting to unscale FP16 gradients.");
    }
    std::vector<size_t> indices;
    for (size_t i = 0; i < parameters.size(); ++i) {
        auto g = parameters[i].grad();
        if (!g.defined()) continue;
        // Checked before the multiply, as PyTorch's kernel checks the scaled value.
        flags.push_back(torch::isfinite(g).all().logical_not());
        indices.push_back(i);
        g.mul_(inverse);
    }
    foundInf_ = false;
    if (!flags.empty()) {
        // One host read for all parameters.
        auto host = torch::stack(flags).to(torch::kCPU);
        auto accessor = host.accessor<bool, 1>();
        for (size_t k = 0; k < indices.size(); ++k) {
            nonFinite_[indices[k]] = accessor[k];
            foundInf_ = foundInf_ || accessor[k];
        }
    }
    infChecked_ = true;
    stage_ = Stage::Unscaled;
    return foundInf_;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& parameters) {
    if (!enabled()) {
        optimizer.step();
        return true;
    }
    if (stage_ == Stage::Stepped)
        throw ScalerUsageError("step() has already been called since the last update().");
    if (stage_ == Stage::Ready) unscale(parameters);
    if (!infChecked_) throw ScalerUsageError("No inf checks were recorded for this optimizer.");
    const bool ran = !foundInf_;
    if (ran) optimizer.step();
    stage_ = Stage::Stepped;
    return ran;
}

ScaleChange GradScaler::update() {
    if (!enabled()) return ScaleChange::None;
    if (!infChecked_) throw ScalerUsageError("No inf checks were recorded prior to update.");
    ScaleChange change = ScaleChange::None;
    if (kind_ == Kind::Dynamic) change = applyScaleUpdate(state_, rule_, foundInf_);
    stage_ = Stage::Ready;
    infChecked_ = false;
    return change;
}

void GradScaler::update(float newScale) {
    if (!enabled()) return;
    state_.scale = newScale;
    stage_ = Stage::Ready;
    infChecked_ = false;
}

ScalerStateDict GradScaler::stateDict() const {
    return {state_.scale, rule_.growthFactor, rule_.backoffFactor, rule_.growthInterval,
            state_.growthTracker};
}

void GradScaler::loadStateDict(const ScalerStateDict& state) {
    state_.scale = state.scale;
    state_.growthTracker = state.growthTracker;
    rule_.growthFactor = state.growthFactor;
    rule_.backoffFactor = state.backoffFactor;
    rule_.growthInterval = state.growthInterval;
}

}  // namespace ampscope
