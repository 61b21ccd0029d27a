#pragma once
// INTERNAL (includes torch). TensorsDataset: data.dataset "tensors", the user's own
// samples from a safetensors file. Its contract is in Dataset.h, beside the other sets'
// (which fields it reads, how inputs and targets are converted, what is refused);
// loadData dispatches here.
#include <cstdint>

#include "data/Dataset.h"

namespace ampscope {

// The largest number of classes a classification file may ask for: the widest layer the
// config accepts (ConfigValidation's kMaxWidth), so one stray label cannot ask for a
// billion-wide output layer.
inline constexpr int64_t kMaxTensorClasses = 65536;

DataBundle loadTensors(const DataConfig& config, uint64_t seed);

}  // namespace ampscope
