#pragma once
// INTERNAL (includes torch). The one place that decides between LibTorch versions.
//
// AmpScope builds against LibTorch 1.13 (Debian 12), 2.6 (Debian 13), 2.11 (the GPU
// machine's pip wheels) and 2.14 (Debian testing). Where their C++ API differs, the
// branch is taken here, each with the version that needs it; the rest of core calls
// what this header names and is written once.
#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <torch/version.h>

#define AMPSCOPE_TORCH_AT_LEAST(major, minor) \
    (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// LibTorch 2.0 changed c10::Allocator (2.3 made allocate() non-const and added the
// pure virtual copy_data()): the CPU block cache implements the 1.x interface only.
#define AMPSCOPE_TORCH_CPU_ALLOCATOR_1X (!AMPSCOPE_TORCH_AT_LEAST(2, 0))

// PyTorch's own low-precision dtypes, the independent truth the format suites compare
// the emulation with: float8_e4m3fn and float8_e5m2 from 2.1, float8_e8m0fnu from 2.7,
// float4_e2m1fn_x2 (two e2m1 codes a byte) from 2.8.
#define AMPSCOPE_TORCH_HAS_FLOAT8 AMPSCOPE_TORCH_AT_LEAST(2, 1)
#define AMPSCOPE_TORCH_HAS_FLOAT8_E8M0 AMPSCOPE_TORCH_AT_LEAST(2, 7)
#define AMPSCOPE_TORCH_HAS_FLOAT4_E2M1_X2 AMPSCOPE_TORCH_AT_LEAST(2, 8)

namespace ampscope::torch_compat {

// The default generator of a device, through at::Context: the CUDA hooks' own call
// for it is getDefaultCUDAGenerator up to 2.2 and getDefaultGenerator from 2.3.
inline const at::Generator& defaultGenerator(c10::Device device) {
    return at::globalContext().defaultGenerator(device);
}

// Autocast's state per device type: 2.4 gave it one API that takes the device type
// (set_autocast_enabled(device, ...)); before, CUDA and CPU had a call each, and 2.4
// deprecated those.
inline void setAutocastEnabled(c10::DeviceType device, bool enabled) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_enabled(device, enabled);
#else
    if (device == c10::DeviceType::CUDA)
        at::autocast::set_enabled(enabled);
    else
        at::autocast::set_cpu_enabled(enabled);
#endif
}

inline void setAutocastDtype(c10::DeviceType device, c10::ScalarType dtype) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_dtype(device, dtype);
#else
    if (device == c10::DeviceType::CUDA)
        at::autocast::set_autocast_gpu_dtype(dtype);
    else
        at::autocast::set_autocast_cpu_dtype(dtype);
#endif
}

inline bool autocastEnabled(c10::DeviceType device) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    return at::autocast::is_autocast_enabled(device);
#else
    return device == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

inline c10::ScalarType autocastDtype(c10::DeviceType device) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    return at::autocast::get_autocast_dtype(device);
#else
    return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                            : at::autocast::get_autocast_cpu_dtype();
#endif
}

}  // namespace ampscope::torch_compat
