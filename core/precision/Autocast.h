#pragma once
// INTERNAL (includes torch). The one place that talks to LibTorch's autocast
// state, whose C++ API changed in 2.4: 1.13 has set_cpu_enabled /
// set_autocast_cpu_dtype / set_enabled / set_autocast_gpu_dtype, 2.4+ has
// set_autocast_enabled(device, bool) / set_autocast_dtype(device, dtype).
//
// Autocast state is thread-local: create an AutocastScope inside the engine
// thread, around the forward and the loss only. Leaving the outermost scope
// clears the autocast weight-cast cache, as Python's torch.autocast does.
#include <torch/torch.h>

namespace ampscope {

class AutocastScope {
public:
    // enabled=false disables autocast for the scope (a layer kept in fp32).
    AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    c10::DeviceType device_;
    bool previousEnabled_;
    c10::ScalarType previousDtype_;
};

bool autocastEnabled(c10::DeviceType device);
c10::ScalarType autocastDtype(c10::DeviceType device);

}  // namespace ampscope
