#pragma once
// Plain C++ (no torch, no CUDA headers): the host API of the fused gradient probe,
// a CUDA kernel (FusedProbeKernel.cu, library ampscope_cuda_kernels, built when
// CMake finds a CUDA compiler and AMPSCOPE_CUDA_KERNELS is on).
//
// One pass over a tensor on the GPU produces BOTH its exponent histogram and its
// fp16 class counts under up to kMaxPlans multipliers (a layer's gradient at scale/2,
// scale, 2*scale), where the LibTorch path reads the gradient once per probe and
// per multiplier. The per-element rules are ProbeElementRules.h, shared with the CPU
// tests. Each block counts into shared memory (warp-aggregated atomics for the
// histogram, registers and warp shuffles for the classes) and adds its counts to the
// output with one global atomic per non-zero counter.
//
// Output: probe_rules::fusedSlotCount(planCount) unsigned 64-bit counters on the
// device: the histogram (HistogramProbe.h's slot layout), then kClassCount counters
// per plan (zero, flushed, subnormal, normal, overflow, NaN, +Inf, -Inf).
#include <cstdint>
#include <string>

#include "kernels/ProbeElementRules.h"

namespace ampscope::cuda_kernels {

enum class ElementType { Float32, Float16, BFloat16 };

struct FusedProbeLaunch {
    const void* data = nullptr;  // device pointer to `count` contiguous elements
    int64_t count = 0;
    ElementType type = ElementType::Float32;
    const probe_rules::Fp16Plan* plans = nullptr;  // host array of planCount plans
    int planCount = 0;                             // 0 .. probe_rules::kMaxPlans
    unsigned long long* out = nullptr;             // device counters (see above)
    void* stream = nullptr;                        // a cudaStream_t; null: the default stream
    bool accumulate = false;  // add to `out` (several tensors counted as one) instead of overwriting
};

// Enqueues the probe on the stream, without a host synchronisation. Returns "" on
// success, else one line naming what is wrong (a bad argument or the CUDA error).
std::string launchFusedProbe(const FusedProbeLaunch& launch);

// CUDA devices the runtime sees: 0 when there is none, no driver, or an error.
int cudaDeviceCount();

}  // namespace ampscope::cuda_kernels
