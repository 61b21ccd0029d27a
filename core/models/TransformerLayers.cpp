#include "models/TransformerLayers.h"

#include <cmath>

namespace ampscope {

PatchEmbedLayer::PatchEmbedLayer(int64_t channels, int64_t height, int64_t width, int64_t patch,
                                 int64_t dim)
    : channels_(channels), patch_(patch), tokens_((height / patch) * (width / patch)) {
    projection_ = register_module("projection", torch::nn::Linear(channels * patch * patch, dim));
    position_ = register_parameter("position", torch::randn({tokens_, dim}) * 0.02);
}

torch::Tensor PatchEmbedLayer::forward(const torch::Tensor& input, const LayerCompute& compute) {
    const auto batch = input.size(0);
    // [B,C,H,W] -> [B, tokens, C*p*p]: unfold rows and columns into patches.
    auto patches = input.unfold(2, patch_, patch_).unfold(3, patch_, patch_);
    patches = patches.permute({0, 2, 3, 1, 4, 5}).reshape({batch, tokens_, channels_ * patch_ * patch_});
    auto embedded = compute.result(torch::linear(compute.input(patches),
                                                 compute.weight(projection_->weight),
                                                 compute.bias(projection_->bias)));
    return embedded + position_;
}

std::string PatchEmbedLayer::describe() const {
    return "patch embed " + std::to_string(patch_) + "x" + std::to_string(patch_) + " -> " +
           std::to_string(tokens_) + " tokens of " +
           std::to_string(projection_->options.out_features());
}

EncoderBlockLayer::EncoderBlockLayer(int64_t dim, int64_t heads, int64_t mlpRatio)
    : dim_(dim), heads_(heads), mlpRatio_(mlpRatio) {
    attentionNorm_ = register_module("attention_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
    qkv_ = register_module("qkv", torch::nn::Linear(dim, 3 * dim));
    projection_ = register_module("projection", torch::nn::Linear(dim, dim));
    mlpNorm_ = register_module("mlp_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
    mlpIn_ = register_module("mlp_in", torch::nn::Linear(dim, dim * mlpRatio));
    mlpOut_ = register_module("mlp_out", torch::nn::Linear(dim * mlpRatio, dim));
}

torch::Tensor EncoderBlockLayer::linear(const torch::nn::Linear& layer, const torch::Tensor& x,
                                        const LayerCompute& compute) const {
    return compute.result(torch::linear(compute.input(x), compute.weight(layer->weight),
                                        compute.bias(layer->bias)));
}

torch::Tensor EncoderBlockLayer::forward(const torch::Tensor& input, const LayerCompute& compute) {
    const auto batch = input.size(0), tokens = input.size(1);
    const auto headDim = dim_ / heads_;
    auto qkv = linear(qkv_, attentionNorm_->forward(input), compute)
                   .reshape({batch, tokens, 3, heads_, headDim})
                   .permute({2, 0, 3, 1, 4});  // [3, B, heads, T, headDim]
    auto q = qkv[0], k = qkv[1], v = qkv[2];
    // A second matmul operand's reduction dimension is its second to last (blocks there).
    auto scores = compute.result(torch::matmul(compute.input(q),
                                               compute.input(k.transpose(-2, -1), BlockLayout::SecondToLast))) *
                  (1.0 / std::sqrt(static_cast<double>(headDim)));
    // Autocast runs softmax in fp32; pure modes run it in their own dtype.
    auto weights = torch::softmax(scores, -1);
    auto attended =
        compute.result(torch::matmul(compute.input(weights), compute.input(v, BlockLayout::SecondToLast)));
    attended = attended.permute({0, 2, 1, 3}).reshape({batch, tokens, dim_});
    auto x = input + linear(projection_, attended, compute);
    auto hidden = torch::gelu(linear(mlpIn_, mlpNorm_->forward(x), compute));
    return x + linear(mlpOut_, hidden, compute);
}

std::string EncoderBlockLayer::describe() const {
    return "encoder block: dim " + std::to_string(dim_) + ", " + std::to_string(heads_) +
           " heads, MLP x" + std::to_string(mlpRatio_);
}

TokenPoolLayer::TokenPoolLayer(int64_t dim) {
    norm_ = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
}

torch::Tensor TokenPoolLayer::forward(const torch::Tensor& input, const LayerCompute&) {
    return norm_->forward(input).mean(1);
}

}  // namespace ampscope
