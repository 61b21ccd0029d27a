// The fused gradient probe on the GPU (contract: FusedProbeKernel.h). No torch here:
// the library must build without a CUDA LibTorch, and its tests run with any.
#include "kernels/FusedProbeKernel.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace ampscope::cuda_kernels {
namespace {

namespace rules = probe_rules;

constexpr int kThreads = 256;
constexpr int kWarpSize = 32;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;
// Each launch counts at most this many elements, so that a block's 32-bit
// shared-memory counters cannot wrap; longer tensors take several launches.
constexpr int64_t kMaxElementsPerLaunch = int64_t{1} << 30;

// The multipliers travel by value in the kernel's parameters.
struct PlanSet {
    rules::Fp16Plan plans[rules::kMaxPlans];
    int count;
};

template <ElementType kType>
__device__ inline float loadElement(const void* data, int64_t i) {
    if constexpr (kType == ElementType::Float32) {
        return static_cast<const float*>(data)[i];
    } else if constexpr (kType == ElementType::Float16) {
        return rules::halfBitsToFloat(static_cast<const uint16_t*>(data)[i]);
    } else {
        return rules::bfloat16BitsToFloat(static_cast<const uint16_t*>(data)[i]);
    }
}

template <ElementType kType>
__global__ void __launch_bounds__(kThreads)
    fusedProbeKernel(const void* data, int64_t count, PlanSet plans, unsigned long long* out) {
    __shared__ unsigned int counters[rules::fusedSlotCount(rules::kMaxPlans)];
    const int slots = rules::fusedSlotCount(plans.count);
    for (int s = threadIdx.x; s < slots; s += blockDim.x) counters[s] = 0;
    __syncthreads();

    const int lane = threadIdx.x % kWarpSize;
    // Class counts stay in registers until the end; histogram slots are too many.
    unsigned int classes[rules::kMaxPlans][rules::kClassCount] = {};
    // Warp-uniform loop bounds: every lane runs the same iterations, so the full-warp
    // intrinsics below see all 32 lanes; lanes past the end take part without counting.
    const int64_t warpFirst = (static_cast<int64_t>(blockIdx.x) * blockDim.x) + (threadIdx.x - lane);
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t base = warpFirst; base < count; base += stride) {
        const int64_t i = base + lane;
        const bool valid = i < count;
        const float x = valid ? loadElement<kType>(data, i) : 0.0f;
        const int slot = valid ? rules::histogramSlot(rules::floatBits(x)) : -1;
        // Gradients crowd into a few exponents: lanes with the same slot add once.
        const unsigned peers = __match_any_sync(kFullWarp, slot);
        if (valid && lane == __ffs(peers) - 1) atomicAdd(&counters[slot], __popc(peers));
        if (!valid) continue;
#pragma unroll
        for (int p = 0; p < rules::kMaxPlans; ++p) {
            if (p >= plans.count) break;
            const int c = rules::fp16Class(x, plans.plans[p]);
#pragma unroll
            for (int k = 0; k < rules::kClassCount; ++k) classes[p][k] += (c == k);
        }
    }
    // Sum each class counter over the warp; lane 0 adds it to the block's.
#pragma unroll
    for (int p = 0; p < rules::kMaxPlans; ++p) {
        if (p >= plans.count) break;
#pragma unroll
        for (int k = 0; k < rules::kClassCount; ++k) {
            unsigned int v = classes[p][k];
            for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
                v += __shfl_down_sync(kFullWarp, v, offset);
            if (lane == 0 && v != 0) atomicAdd(&counters[rules::kHistogramSlots + p * rules::kClassCount + k], v);
        }
    }
    __syncthreads();
    for (int s = threadIdx.x; s < slots; s += blockDim.x)
        if (counters[s] != 0) atomicAdd(&out[s], static_cast<unsigned long long>(counters[s]));
}

std::string cudaText(const char* what, cudaError_t error) {
    return std::string("fused probe: ") + what + ": " + cudaGetErrorString(error);
}

}  // namespace

std::string launchFusedProbe(const FusedProbeLaunch& launch) {
    if (launch.count < 0) return "fused probe: negative element count";
    if (launch.planCount < 0 || launch.planCount > rules::kMaxPlans)
        return "fused probe: " + std::to_string(launch.planCount) + " multipliers (at most " +
               std::to_string(rules::kMaxPlans) + ")";
    if (!launch.out || (launch.count > 0 && !launch.data)) return "fused probe: null device pointer";
    if (launch.planCount > 0 && !launch.plans) return "fused probe: null plan list";
    const auto stream = static_cast<cudaStream_t>(launch.stream);
    const size_t bytes = sizeof(unsigned long long) * rules::fusedSlotCount(launch.planCount);
    if (!launch.accumulate) {
        if (const auto e = cudaMemsetAsync(launch.out, 0, bytes, stream); e != cudaSuccess)
            return cudaText("clearing the output", e);
    }
    if (launch.count == 0) return {};

    PlanSet plans{};
    plans.count = launch.planCount;
    for (int p = 0; p < launch.planCount; ++p) plans.plans[p] = launch.plans[p];

    int device = 0;
    int processors = 0;
    if (const auto e = cudaGetDevice(&device); e != cudaSuccess) return cudaText("no current device", e);
    if (const auto e = cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device);
        e != cudaSuccess)
        return cudaText("reading the device", e);
    // Enough blocks to fill the GPU a few times over, no more: each block flushes its
    // counters once, so fewer, longer blocks mean fewer global atomics.
    const int64_t maxBlocks = std::max(1, processors) * int64_t{8};
    const size_t elementBytes = launch.type == ElementType::Float32 ? 4 : 2;
    for (int64_t first = 0; first < launch.count; first += kMaxElementsPerLaunch) {
        const int64_t n = std::min(kMaxElementsPerLaunch, launch.count - first);
        const auto* part = static_cast<const char*>(launch.data) + first * static_cast<int64_t>(elementBytes);
        const int blocks = static_cast<int>(std::min(maxBlocks, (n + kThreads - 1) / kThreads));
        switch (launch.type) {
            case ElementType::Float32:
                fusedProbeKernel<ElementType::Float32><<<blocks, kThreads, 0, stream>>>(part, n, plans, launch.out);
                break;
            case ElementType::Float16:
                fusedProbeKernel<ElementType::Float16><<<blocks, kThreads, 0, stream>>>(part, n, plans, launch.out);
                break;
            case ElementType::BFloat16:
                fusedProbeKernel<ElementType::BFloat16><<<blocks, kThreads, 0, stream>>>(part, n, plans, launch.out);
                break;
        }
        if (const auto e = cudaGetLastError(); e != cudaSuccess) return cudaText("launch", e);
    }
    return {};
}

int cudaDeviceCount() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no driver" error for later calls
        return 0;
    }
    return count;
}

}  // namespace ampscope::cuda_kernels
