#include "engine/DeviceMemory.h"

#if defined(AMPSCOPE_HAVE_C10_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <string>

#include "common/InputError.h"

namespace ampscope {

c10::Device pickDevice(const std::string& requested) {
    const bool cudaAvailable = torch::cuda::is_available();
    if (requested == "cuda") {
        if (!cudaAvailable)
            throw InputError("device: cuda requested but no CUDA device is available to this LibTorch (" +
                             std::string(TORCH_VERSION) + ")");
        return c10::Device(c10::kCUDA, 0);
    }
    if (requested == "auto" && cudaAvailable) return c10::Device(c10::kCUDA, 0);
    return c10::Device(c10::kCPU);
}

std::optional<int64_t> cudaPeakAllocatedBytes(const c10::Device& device) {
    if (!device.is_cuda()) return std::nullopt;
#if defined(AMPSCOPE_HAVE_C10_CUDA)
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    // Index 0 of a stat array is the aggregate over pool kinds.
    return stats.allocated_bytes[0].peak;
#else
    return std::nullopt;
#endif
}

}  // namespace ampscope
