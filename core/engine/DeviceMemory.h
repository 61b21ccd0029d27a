#pragma once
// INTERNAL (includes torch). The device a run asks for, and the peak bytes the CUDA
// caching allocator has handed out on it, or nothing: on a CPU device, and in a
// LibTorch built without CUDA (where this compiles to "nothing" without c10_cuda).
#include <cstdint>
#include <optional>

#include <torch/torch.h>

namespace ampscope {

// config.device: "cpu", "cuda" (InputError when this LibTorch sees no CUDA device) or
// "auto" (the first CUDA device when there is one).
c10::Device pickDevice(const std::string& requested);

std::optional<int64_t> cudaPeakAllocatedBytes(const c10::Device& device);

}  // namespace ampscope
