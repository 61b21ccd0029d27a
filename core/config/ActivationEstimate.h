#pragma once
// Plain (no torch, no Qt). A lower bound of the activation memory one training step
// holds: the output of every layer, one fp32 value per element, kept for backward.
// Validation refuses a batch whose bound exceeds the machine's physical memory, so an
// absurd batch x width fails as one line naming train.batch_size instead of as an
// allocation failure (or the kernel's OOM killer) in the first step.
//
// Counted per sample (mixed precision keeps some outputs in 16 bits, but the fp32
// emulation, the master copies and the gradients of backward only add to this):
// - mlp: flatten/input features, then per hidden layer its linear output, its norm
//   output (norm batch|layer) and its activation output; the output layer.
// - simple_cnn: conv1 64x28x28, pool1 and relu1 64x14x14 each, conv2 128x14x14,
//   pool2 and relu2 128x7x7 each (norm adds one conv-sized output per conv).
// - deep_cnn: per block its conv output, norm output (unless norm none) and ReLU output
//   at the block's spatial size; the classifier (1000 + 1000 + classes).
// - transformer: per block T x D for each of pre-norms (2), q, k, v, attention output,
//   projection, residuals (2), MLP output, plus T x D x mlp_ratio twice (MLP hidden and
//   its activation) and heads x T x T twice (scores and softmax); T = (28/patch)^2.
// - other models: 0 (too small to matter, or unknown to the estimate).
#include <cstdint>
#include <string>

#include "config/RunConfig.h"

namespace ampscope {

double activationElementsPerSample(const RunConfig& config);

// Bytes of the bound for one training batch: train.batch_size samples (fewer when the
// training set is known to be smaller), 4 bytes per element.
double activationBytesPerStep(const RunConfig& config);

// This machine's physical memory in bytes (0 when the system does not say).
double physicalMemoryBytes();

// The memory validation holds one step's layer outputs to: AMPSCOPE_MEMORY_BYTES where it
// is set (a job given less than the machine; the tests, which must refuse the same batch
// on any machine), else the physical memory. `problem` says what is wrong with a setting
// that is not a positive number of bytes (and bytes is then 0: nothing is compared).
struct MemoryLimit {
    double bytes = 0.0;
    bool fromEnvironment = false;
    std::string problem;
};
inline constexpr const char* kMemoryLimitVariable = "AMPSCOPE_MEMORY_BYTES";
MemoryLimit memoryLimit();

}  // namespace ampscope
