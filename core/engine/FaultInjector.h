#pragma once
// INTERNAL (includes torch). Applies the config's faults at their exact step
// and layer: inf/nan into the layer's forward output (first element), or
// into the gradient arriving at the layer's output during backward;
// scale_activation multiplies the layer's whole forward output; scale_loss multiplies that step's loss; alloc_failure throws std::bad_alloc
// in the layer's forward (what running out of memory looks like to the engine). Each applied fault is reported so
// the run directory records that it happened.
#include <functional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "config/RunConfig.h"
#include "models/LayeredModel.h"

namespace ampscope {

class FaultInjector : public LayerObserver {
public:
    using Report = std::function<void(const FaultConfig& fault)>;
    FaultInjector(std::vector<FaultConfig> faults, Report report);

    // Call before each step; returns the loss factor for that step (1 if none).
    double beginStep(int64_t step);
    void afterLayer(size_t index, const std::string& name, torch::Tensor& output) override;
    bool hasFaults() const { return !faults_.empty(); }

private:
    std::vector<FaultConfig> faults_;
    Report report_;
    int64_t step_ = 0;
    // Faults reported in this step: a step run again (StepReplay) injects them
    // again, so the replay sees what the step saw, but reports each once.
    std::vector<bool> reported_;
    void reportOnce(size_t index);
};

}  // namespace ampscope
