#include "precision/Autocast.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#define AMPSCOPE_TORCH_AT_LEAST(major, minor) \
    (TORCH_VERSION_MAJOR > (major) ||         \
     (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace ampscope {
namespace {

void setEnabled(c10::DeviceType device, bool enabled) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_enabled(device, enabled);
#else
    if (device == c10::DeviceType::CUDA)
        at::autocast::set_enabled(enabled);
    else
        at::autocast::set_cpu_enabled(enabled);
#endif
}

void setDtype(c10::DeviceType device, c10::ScalarType dtype) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_dtype(device, dtype);
#else
    if (device == c10::DeviceType::CUDA)
        at::autocast::set_autocast_gpu_dtype(dtype);
    else
        at::autocast::set_autocast_cpu_dtype(dtype);
#endif
}

}  // namespace

bool autocastEnabled(c10::DeviceType device) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    return at::autocast::is_autocast_enabled(device);
#else
    return device == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                            : at::autocast::is_cpu_enabled();
#endif
}

c10::ScalarType autocastDtype(c10::DeviceType device) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
    return at::autocast::get_autocast_dtype(device);
#else
    return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                            : at::autocast::get_autocast_cpu_dtype();
#endif
}

AutocastScope::AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled)
    : device_(device),
      previousEnabled_(autocastEnabled(device)),
      previousDtype_(autocastDtype(device)) {
    setEnabled(device_, enabled);
    if (enabled) setDtype(device_, dtype);
    at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
    // The cache holds low-precision copies of the weights; it must not outlive
    // the step, or the optimizer's update would be invisible to the next forward.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    setEnabled(device_, previousEnabled_);
    setDtype(device_, previousDtype_);
}

}  // namespace ampscope
