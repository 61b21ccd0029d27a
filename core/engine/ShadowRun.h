#pragma once
// INTERNAL (includes torch). The fp32 shadow of DESIGN.md: an fp32 copy of the
// run's model (no autocast, no emulation, no scaler) that, on a shadow step,
// takes the run's current weights and buffers, runs the same batch forward and
// backward, and compares its gradients s with the run's unscaled gradients g
// (GradientComparisonProbe.h).
//
// The shadow never changes training: it is its own model (the run's BatchNorm
// running stats are copied into it, never out of it), its own gradients, no
// optimizer; building it leaves the global random stream where it was; and
// nothing in its forward draws random numbers.
#include <memory>
#include <vector>

#include "engine/Trainer.h"
#include "probes/GradientComparison.h"

namespace ampscope {

class ShadowRun {
public:
    explicit ShadowRun(const Trainer& main);
    ~ShadowRun();

    // Call when `main`'s gradients are unscaled (after unscale, before the
    // optimizer), with its step's batch in lastInputs()/lastTargets().
    std::vector<GradientComparison> compare(const Trainer& main);
    const Trainer& shadow() const { return *shadow_; }

private:
    std::unique_ptr<Trainer> shadow_;
};

// The config of an fp32 shadow of `config`: mode fp32, no scaler, nothing kept.
RunConfig fp32ShadowConfig(const RunConfig& config);

}  // namespace ampscope
