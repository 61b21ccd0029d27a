#include "precision/Autocast.h"

#include "common/TorchCompat.h"

namespace ampscope {

bool autocastEnabled(c10::DeviceType device) {
    return torch_compat::autocastEnabled(device);
}

c10::ScalarType autocastDtype(c10::DeviceType device) {
    return torch_compat::autocastDtype(device);
}

AutocastScope::AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled)
    : device_(device),
      previousEnabled_(autocastEnabled(device)),
      previousDtype_(autocastDtype(device)) {
    torch_compat::setAutocastEnabled(device_, enabled);
    if (enabled) torch_compat::setAutocastDtype(device_, dtype);
    at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
    // The cache holds low-precision copies of the weights; it must not outlive
    // the step, or the optimizer's update would be invisible to the next forward.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    torch_compat::setAutocastEnabled(device_, previousEnabled_);
    torch_compat::setAutocastDtype(device_, previousDtype_);
}

}  // namespace ampscope
