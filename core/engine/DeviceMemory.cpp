#include "engine/DeviceMemory.h"

#if defined(AMPSCOPE_HAVE_C10_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace ampscope {

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
