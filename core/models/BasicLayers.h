#pragma once
// INTERNAL (includes torch). The building blocks of the model zoo. Parameters
// are initialised as PyTorch's nn.Linear / nn.Conv2d do (kaiming-uniform), by
// holding those modules; the forward passes go through LayerCompute.
#include <string>

#include <torch/torch.h>

#include "models/Layer.h"

namespace ampscope {

class LinearLayer : public Layer {
public:
    LinearLayer(int64_t in, int64_t out, bool bias = true);
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;
    bool hasMatmul() const override { return true; }

private:
    torch::nn::Linear linear_{nullptr};
};

// conv (+ optional norm) (+ optional ReLU): deep_cnn's conv block, or a plain conv.
class ConvLayer : public Layer {
public:
    ConvLayer(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
              const std::string& norm, bool relu);
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;
    bool hasMatmul() const override { return true; }

private:
    torch::nn::Conv2d conv_{nullptr};
    torch::nn::BatchNorm2d batchNorm_{nullptr};
    torch::nn::GroupNorm groupNorm_{nullptr};  // "layer" norm over (C,H,W)
    int64_t in_, out_, kernel_, stride_, pad_;
    std::string norm_;
    bool relu_;
};

class ActivationLayer : public Layer {
public:
    explicit ActivationLayer(std::string kind);  // relu | gelu | tanh
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override { return kind_; }

private:
    std::string kind_;
};

class MaxPoolLayer : public Layer {
public:
    explicit MaxPoolLayer(int64_t size) : size_(size) {}
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;

private:
    int64_t size_;
};

// Adaptive average pool to 1x1, then flatten: [B,C,H,W] -> [B,C].
class GlobalAvgPoolLayer : public Layer {
public:
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override { return "adaptive avg pool 1x1 + flatten"; }
};

class FlattenLayer : public Layer {
public:
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override { return "flatten"; }
};

// Normalisation over features of a [B,F] tensor: batch (BatchNorm1d) or layer.
class FeatureNormLayer : public Layer {
public:
    FeatureNormLayer(int64_t features, const std::string& kind);
    torch::Tensor forward(const torch::Tensor& input, const LayerCompute& compute) override;
    std::string describe() const override;

private:
    torch::nn::BatchNorm1d batchNorm_{nullptr};
    torch::nn::LayerNorm layerNorm_{nullptr};
    int64_t features_;
};

}  // namespace ampscope
