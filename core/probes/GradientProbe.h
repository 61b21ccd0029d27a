#pragma once
// INTERNAL (includes torch). A layer's gradient histogram AND its fp16 classes under
// a few multipliers, as slots on the tensors' device (no host synchronisation), from
// ONE read of the gradient where the build has the fused CUDA kernel.
//
// For CUDA tensors in a build with AMPSCOPE_HAVE_FUSED_PROBE (CUDA LibTorch and
// AMPSCOPE_CUDA_KERNELS), the kernel of kernels/FusedProbeKernel.h counts both on the
// current stream into an int64 tensor torch allocated on the device; otherwise the
// histogram and classifier probes run one after the other (histogramSlots,
// fp16ClassSlots). Either way the results are the slots those two return, so a probe
// step adds them to its ProbeReadout and reads everything with one copy.
#include <torch/torch.h>

#include <vector>

namespace ampscope {

struct GradientProbeSlots {
    torch::Tensor histogram;  // [histogram_slot::kCount], float64
    torch::Tensor classes;    // [multipliers, fp16_class_slot::kCount], float64
};

// The tensors (undefined ones skipped) counted as one, on their shared device; at most
// 4 multipliers (the fused kernel's limit), each finite and > 0.
GradientProbeSlots gradientProbeSlots(const std::vector<torch::Tensor>& values,
                                      const std::vector<double>& multipliers);

// Does this build send CUDA tensors to the fused kernel?
bool fusedProbeBuilt();

namespace probe_detail {
// The fused kernel itself, for CUDA tensors (tests compare it with the two probes).
// Throws std::logic_error in a build without it, std::invalid_argument for a tensor
// not on a CUDA device, std::runtime_error for a CUDA error.
GradientProbeSlots fusedProbeSlots(const std::vector<torch::Tensor>& values,
                                   const std::vector<double>& multipliers);
}  // namespace probe_detail

}  // namespace ampscope
