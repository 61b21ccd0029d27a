#pragma once
// INTERNAL (includes torch). Peak bytes the CUDA caching allocator has handed
// out on a device, or nothing: on a CPU device, and in a LibTorch built
// without CUDA (where this compiles to "nothing" without c10_cuda).
#include <cstdint>
#include <optional>

#include <torch/torch.h>

namespace ampscope {

std::optional<int64_t> cudaPeakAllocatedBytes(const c10::Device& device);

}  // namespace ampscope
