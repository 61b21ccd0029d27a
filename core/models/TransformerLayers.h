#pragma once
// INTERNAL (includes torch). A small pre-norm transformer encoder over image
// patches: patch embedding, encoder blocks (LayerNorm, softmax attention, MLP),
// token mean-pool. Attention is written out (q k^T, softmax, attn v) so its two
// matmuls go through LayerCompute like every other matmul, and the softmax
// stays fp32 as autocast keeps it.
#include <string>

#include <torch/torch.h>

#include "models/Layer.h"

namespace ampscope {

class PatchEmbedLayer : public Layer {
public:
    PatchEmbedLayer(int64_t channels, int64_t height, int64_t width, int64_t patch, int64_t dim);
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;
    bool hasMatmul() const override { return true; }

private:
    torch::nn::Linear projection_{nullptr};
    torch::Tensor position_;
    int64_t channels_, patch_, tokens_;
};

class EncoderBlockLayer : public Layer {
public:
    EncoderBlockLayer(int64_t dim, int64_t heads, int64_t mlpRatio);
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;
    bool hasMatmul() const override { return true; }

private:
    torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x,
                         const LayerCompute& compute) const;
    torch::nn::LayerNorm attentionNorm_{nullptr}, mlpNorm_{nullptr};
    torch::nn::Linear qkv_{nullptr}, projection_{nullptr}, mlpIn_{nullptr}, mlpOut_{nullptr};
    int64_t dim_, heads_, mlpRatio_;
};

// LayerNorm over the token features, then mean over tokens: [B,T,D] -> [B,D].
class TokenPoolLayer : public Layer {
public:
    explicit TokenPoolLayer(int64_t dim);
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override { return "LayerNorm + mean over tokens"; }

private:
    torch::nn::LayerNorm norm_{nullptr};
};

}  // namespace ampscope
