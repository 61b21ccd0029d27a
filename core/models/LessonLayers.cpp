#include "models/LessonLayers.h"

#include "common/Text.h"

namespace ampscope {

HalfStatsBatchNormLayer::HalfStatsBatchNormLayer(int64_t features) : features_(features) {
    weight_ = register_parameter("weight", torch::ones({features}));
    bias_ = register_parameter("bias", torch::zeros({features}));
    runningMean_ = register_buffer("running_mean", torch::zeros({features}));
    runningVar_ = register_buffer("running_var", torch::ones({features}));
}

torch::Tensor HalfStatsBatchNormLayer::forward(const torch::Tensor& input, const LayerCompute& compute) {
    // Every intermediate is held where the layer's elementwise results are held: fp16
    // under fp16 emulation (autocast does not promote mean, sub, mul, sqrt or div),
    // unrounded in fp32 and in layers kept in fp32. On real devices the ops simply run
    // in the input's dtype.
    const auto held = [&](const torch::Tensor& t) {
        return roundWithGradient(t, compute.resultForward.rounding, compute.resultBackward.rounding);
    };
    const torch::Tensor x = held(input);
    torch::Tensor mean, var;
    if (is_training()) {
        mean = held(x.mean(0));
        const torch::Tensor deviation = held(x - mean);
        var = held(held(deviation * deviation).mean(0));
        torch::NoGradGuard noGrad;
        const double n = static_cast<double>(x.size(0));
        const double unbiased = n > 1 ? n / (n - 1) : 1.0;
        runningMean_.mul_(1 - kMomentum).add_(mean.detach().to(torch::kFloat), kMomentum);
        runningVar_.mul_(1 - kMomentum).add_(var.detach().to(torch::kFloat) * unbiased, kMomentum);
    } else {
        mean = held(runningMean_.to(x.scalar_type()));
        var = held(runningVar_.to(x.scalar_type()));
    }
    const torch::Tensor deviation = held(x - mean);
    const torch::Tensor denominator = held(torch::sqrt(held(var + kEps)));
    const torch::Tensor normalised = held(deviation / denominator);
    return held(held(normalised * weight_.to(x.scalar_type())) + bias_.to(x.scalar_type()));
}

std::string HalfStatsBatchNormLayer::describe() const {
    return "BatchNorm " + std::to_string(features_) + " written by hand (statistics in the layer's precision, eps 1e-12)";
}

torch::Tensor ManualSoftmaxLayer::forward(const torch::Tensor& input, const LayerCompute& compute) {
    // exp and sum are promoted to fp32 by autocast; only pure modes hold them in half.
    const auto held = [&](const torch::Tensor& t) {
        return roundWithGradient(t, compute.promotedForward, compute.promotedBackward);
    };
    const torch::Tensor e = held(torch::exp(input));
    const torch::Tensor total = held(e.sum(1, /*keepdim=*/true));
    const torch::Tensor probabilities = held(e / total);
    return torch::log(probabilities);
}

torch::Tensor LibrarySoftmaxLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    return torch::log_softmax(input, 1);
}

torch::Tensor ScaleLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    return input * factor_;
}

std::string ScaleLayer::describe() const {
    return "multiply by " + formatNumber(factor_);
}

}  // namespace ampscope
