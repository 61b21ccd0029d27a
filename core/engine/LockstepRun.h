#pragma once
// INTERNAL (includes torch). Lock-step A/B: a second model B, trained in
// another precision mode next to the main run A, from the same initial
// weights (drawn from the same seeded random state), on the same batches in
// the same order, with its own optimizer and its own scaler.
//
// - B's config is A's with precision.mode = lockstep.mode. When the modes are
//   equal B keeps A's scaler settings (so B repeats A exactly); otherwise B's
//   scaler kind is "auto", resolved for B's mode (dynamic for fp16, off for the
//   rest), with A's init_scale and update rule. keep_fp32 carries over.
// - Faults are injected into A only.
// - Every step gives a "lockstep" record; on A's probe steps it also compares
//   A's unscaled gradients with B's (GradientComparisonProbe.h), both captured
//   at the unscale point, before clipping.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "engine/ComparisonMeans.h"
#include "engine/RunSummary.h"
#include "engine/Trainer.h"
#include "probes/ComparisonRecords.h"

namespace ampscope {

class LockstepRun {
public:
    // initialRng: the CPU generator state A's model was drawn from.
    LockstepRun(const Trainer& main, const torch::Tensor& initialRng);
    ~LockstepRun();

    // Before A's step: whether both sides keep their gradients for comparing.
    void prepare(Trainer& main, bool compare);
    // After A's step on the same batch: B's step and its record.
    LockstepRecord step(int64_t step, const Trainer& main, double mainLoss, const torch::Tensor& inputs,
                        const torch::Tensor& targets);
    void startEpoch();
    LockstepSummary summary() const;
    const Trainer& partner() const { return *partner_; }

private:
    std::unique_ptr<Trainer> partner_;
    std::string mode_;
    bool compare_ = false;
    double epochLossSum_ = 0.0;
    int64_t epochLossCount_ = 0;
    ComparisonMeans means_;
};

// B's config for lock-step against `config` (see LockstepRun).
RunConfig lockstepPartnerConfig(const RunConfig& config);

}  // namespace ampscope
