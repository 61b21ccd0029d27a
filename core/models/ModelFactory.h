#pragma once
// INTERNAL (includes torch). Builds the model zoo from ModelConfig for a given
// per-sample input shape ({C,H,W} images or {F} features) and output count.
// A model that cannot take the input (a CNN on 2-D points, an image size the
// patches do not tile) is an InputError naming the field.
#include <memory>
#include <vector>

#include "config/RunConfig.h"
#include "models/DeepCnnBlocks.h"
#include "models/LayeredModel.h"

namespace ampscope {

std::shared_ptr<LayeredModel> buildModel(const ModelConfig& config,
                                         const std::vector<int64_t>& inputShape, int64_t outputs);

// log_sum's head width; its loss is -log(sum |output|) whatever the dataset.
inline constexpr int64_t kLogSumOutputs = 16;

// The logit scale of mlp_manual_softmax / mlp_library_softmax (a power of two, so
// scaling is exact in every format).
inline constexpr double kSoftmaxLogitScale = 16.0;

// The norm a model uses when the config says "auto".
std::string resolvedNorm(const ModelConfig& config);

}  // namespace ampscope
