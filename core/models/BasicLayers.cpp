#include "models/BasicLayers.h"

namespace ampscope {

LinearLayer::LinearLayer(int64_t in, int64_t out, bool bias) {
    linear_ = register_module("linear", torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias)));
}

torch::Tensor LinearLayer::forward(const torch::Tensor& input, const LayerCompute& compute) {
    const auto& bias = linear_->bias;
    return compute.result(torch::linear(compute.input(input), compute.weight(linear_->weight),
                                        bias.defined() ? compute.bias(bias) : bias));
}

std::string LinearLayer::describe() const {
    return "Linear " + std::to_string(linear_->options.in_features()) + "->" +
           std::to_string(linear_->options.out_features());
}

ConvLayer::ConvLayer(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                     const std::string& norm, bool relu)
    : in_(in), out_(out), kernel_(kernel), stride_(stride), pad_(pad), norm_(norm), relu_(relu) {
    conv_ = register_module(
        "conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(pad)));
    if (norm == "batch") batchNorm_ = register_module("norm", torch::nn::BatchNorm2d(out));
    if (norm == "layer")
        groupNorm_ = register_module("norm", torch::nn::GroupNorm(torch::nn::GroupNormOptions(1, out)));
}

torch::Tensor ConvLayer::forward(const torch::Tensor& input, const LayerCompute& compute) {
    // Blocks run along the reduction: the input's channels, the weight's C x k x k, and
    // the output gradient's channels (the reduction of the input gradient's conv).
    auto y = compute.result(torch::conv2d(compute.input(input, BlockLayout::Channels),
                                          compute.weight(conv_->weight, BlockLayout::FlattenTrailing),
                                          compute.bias(conv_->bias), {stride_, stride_}, {pad_, pad_}),
                            BlockLayout::Channels);
    // Norms are fp32 territory under autocast; emulation leaves them unrounded.
    if (batchNorm_) y = batchNorm_->forward(y);
    if (groupNorm_) y = groupNorm_->forward(y);
    if (relu_) y = torch::relu(y);
    return y;
}

std::string ConvLayer::describe() const {
    std::string text = "Conv2d " + std::to_string(in_) + "->" + std::to_string(out_) + " " +
                       std::to_string(kernel_) + "x" + std::to_string(kernel_);
    if (stride_ != 1) text += " stride " + std::to_string(stride_);
    if (pad_ != 0) text += " pad " + std::to_string(pad_);
    if (norm_ == "batch") text += " + BatchNorm";
    if (norm_ == "layer") text += " + LayerNorm";
    if (relu_) text += " + ReLU";
    return text;
}

ActivationLayer::ActivationLayer(std::string kind) : kind_(std::move(kind)) {}

torch::Tensor ActivationLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    if (kind_ == "gelu") return torch::gelu(input);
    if (kind_ == "tanh") return torch::tanh(input);
    return torch::relu(input);
}

torch::Tensor MaxPoolLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    return torch::max_pool2d(input, {size_, size_});
}

std::string MaxPoolLayer::describe() const {
    return "max pool " + std::to_string(size_) + "x" + std::to_string(size_);
}

torch::Tensor GlobalAvgPoolLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    return torch::adaptive_avg_pool2d(input, {1, 1}).flatten(1);
}

torch::Tensor FlattenLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    return input.flatten(1);
}

FeatureNormLayer::FeatureNormLayer(int64_t features, const std::string& kind) : features_(features) {
    if (kind == "batch")
        batchNorm_ = register_module("norm", torch::nn::BatchNorm1d(features));
    else
        layerNorm_ = register_module(
            "norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({features})));
}

torch::Tensor FeatureNormLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    return batchNorm_ ? batchNorm_->forward(input) : layerNorm_->forward(input);
}

std::string FeatureNormLayer::describe() const {
    return std::string(batchNorm_ ? "BatchNorm " : "LayerNorm ") + std::to_string(features_);
}

}  // namespace ampscope
