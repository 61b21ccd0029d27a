#include "precision/GradScaler.h"

#include <algorithm>

namespace ampscope {

GradScaler::GradScaler(Kind kind, double initScale, const ScaleUpdateRule& rule)
    : kind_(kind), rule_(rule) {
    // PyTorch asserts these in GradScaler.__init__.
    if (!(rule.growthFactor > 1.0)) throw ScalerUsageError("The growth factor must be > 1.0.");
    if (!(rule.backoffFactor < 1.0)) throw ScalerUsageError("The backoff factor must be < 1.0.");
    state_.scale = static_cast<float>(initScale);
}

torch::Tensor scaleLoss(const torch::Tensor& loss, float scale) {
    // The scale is a float32 tensor in PyTorch: the product is taken in the loss's
    // dtype promoted with float32.
    return loss * torch::full({}, scale, loss.options().dtype(torch::kFloat));
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const {
    if (!enabled()) return loss;
    return scaleLoss(loss, state_.scale);
}

bool GradScaler::unscale(const std::vector<torch::Tensor>& parameters) {
    if (!enabled()) return false;
    unscaleWithoutReading(parameters);
    return foundInf();
}

void GradScaler::unscaleWithoutReading(const std::vector<torch::Tensor>& parameters) {
    if (!enabled()) return;
    if (stage_ == Stage::Unscaled)
        throw ScalerUsageError(
            "unscale_() has already been called on this optimizer since the last update().");
    if (stage_ == Stage::Stepped) throw ScalerUsageError("unscale_() is being called after step().");

    std::vector<torch::Tensor> grads;
    gradientIndices_.clear();
    for (size_t i = 0; i < parameters.size(); ++i) {
        const auto& g = parameters[i].grad();
        if (!g.defined()) continue;
        if (g.scalar_type() == torch::kHalf) throw ScalerUsageError("Attempting to unscale FP16 gradients.");
        grads.push_back(g);
        gradientIndices_.push_back(i);
    }
    parameterCount_ = parameters.size();
    const float inverse = inverseScale(state_.scale);
    const auto device = grads.empty() ? torch::Device(torch::kCPU) : grads.front().device();
    parameterFlags_ = torch::Tensor();
    unscaledGradients_.clear();
    if (device.is_cuda()) {
        foundInfFlag_ = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
        // PyTorch's kernel, one dtype at a time as torch.amp.GradScaler groups them: it
        // checks each scaled value, sets found_inf, and multiplies by inv_scale.
        const auto inverseTensor = torch::full({}, inverse, foundInfFlag_.options());
        std::vector<std::vector<torch::Tensor>> byDtype;
        for (const auto& g : grads) {
            auto same = std::find_if(byDtype.begin(), byDtype.end(), [&](const auto& group) {
                return group.front().scalar_type() == g.scalar_type();
            });
            if (same == byDtype.end())
                byDtype.push_back({g});
            else
                same->push_back(g);
        }
        for (auto& group : byDtype) at::_amp_foreach_non_finite_check_and_unscale_(group, foundInfFlag_, inverseTensor);
        unscaledGradients_ = grads;
    } else if (grads.empty()) {
        foundInfFlag_ = torch::zeros({}, torch::kFloat);
    } else {
        // LibTorch 1.13 has that kernel on CUDA only. On the CPU a read costs no
        // synchronisation, so each gradient is checked before the multiply and the
        // per-parameter answer comes with found_inf.
        std::vector<torch::Tensor> flags;
        flags.reserve(grads.size());
        for (const auto& g : grads) flags.push_back(torch::isfinite(g).all().logical_not());
        parameterFlags_ = torch::stack(flags);
        foundInfFlag_ = parameterFlags_.any().to(torch::kFloat);
        at::_foreach_mul_(grads, inverse);
    }
    foundInfRead_ = false;
    nonFiniteRead_ = false;
    infChecked_ = true;
    stage_ = Stage::Unscaled;
}

void GradScaler::setFoundInfRead(bool found) {
    foundInf_ = found;
    foundInfRead_ = true;
}

bool GradScaler::foundInf() const {
    if (!foundInfRead_) {
        foundInf_ = foundInfFlag_.defined() && foundInfFlag_.item<float>() != 0.0f;
        foundInfRead_ = true;
    }
    return foundInf_;
}

const std::vector<bool>& GradScaler::nonFiniteParameters() const {
    if (nonFiniteRead_) return nonFinite_;
    nonFinite_.assign(parameterCount_, false);
    nonFiniteRead_ = true;
    if (!foundInf()) return nonFinite_;
    torch::Tensor flags = parameterFlags_;
    if (!flags.defined()) {
        std::vector<torch::Tensor> each;
        for (const auto& g : unscaledGradients_) each.push_back(torch::isfinite(g).all().logical_not());
        if (!each.empty()) flags = torch::stack(each);
    }
    if (!flags.defined()) return nonFinite_;
    // One host read for all parameters.
    const auto host = flags.to(torch::kCPU);
    const auto accessor = host.accessor<bool, 1>();
    for (size_t k = 0; k < gradientIndices_.size(); ++k) nonFinite_[gradientIndices_[k]] = accessor[k];
    return nonFinite_;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& parameters) {
    return step([&optimizer] { optimizer.step(); }, parameters);
}

bool GradScaler::step(const std::function<void()>& optimizerStep, const std::vector<torch::Tensor>& parameters) {
    if (!enabled()) {
        optimizerStep();
        return true;
    }
    if (stage_ == Stage::Stepped)
        throw ScalerUsageError("step() has already been called since the last update().");
    if (stage_ == Stage::Ready) unscale(parameters);
    if (!infChecked_) throw ScalerUsageError("No inf checks were recorded for this optimizer.");
    const bool ran = !foundInf();
    if (ran) optimizerStep();
    stage_ = Stage::Stepped;
    return ran;
}

ScaleChange GradScaler::update() {
    if (!enabled()) return ScaleChange::None;
    if (!infChecked_) throw ScalerUsageError("No inf checks were recorded prior to update.");
    ScaleChange change = ScaleChange::None;
    if (kind_ == Kind::Dynamic) change = applyScaleUpdate(state_, rule_, foundInf());
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
