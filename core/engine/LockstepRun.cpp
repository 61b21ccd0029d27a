#include "engine/LockstepRun.h"

#include <cmath>
#include <limits>

#include "probes/GradientComparisonProbe.h"

namespace ampscope {

RunConfig lockstepPartnerConfig(const RunConfig& config) {
    RunConfig partner = config;
    partner.precision.mode = config.lockstep.mode;
    if (partner.precision.mode != config.precision.mode) partner.precision.scaler.kind = "auto";
    partner.faults.clear();
    partner.lockstep.mode.clear();
    return partner;
}

LockstepRun::LockstepRun(const Trainer& main, const torch::Tensor& initialRng)
    : partner_(main.twin(lockstepPartnerConfig(main.config()), initialRng)), mode_(main.config().lockstep.mode) {}

LockstepRun::~LockstepRun() = default;

void LockstepRun::prepare(Trainer& main, bool compare) {
    compare_ = compare;
    main.setGradientCapture(compare);
    partner_->setGradientCapture(compare);
}

LockstepRecord LockstepRun::step(int64_t step, const Trainer& main, double mainLoss, const torch::Tensor& inputs,
                                 const torch::Tensor& targets) {
    const StepMetrics m = partner_->step(inputs, targets);
    LockstepRecord r;
    r.step = step;
    r.mode = mode_;
    r.loss = m.loss;
    r.lossDiff = mainLoss - m.loss;
    r.skipped = m.stepSkipped;
    if (std::isfinite(m.loss)) {
        epochLossSum_ += m.loss;
        ++epochLossCount_;
    }
    if (compare_) {
        r.layers = compareGradients(main.capturedGradients(), partner_->capturedGradients(),
                                    main.parameterLayers(), main.model().layerNames());
        means_.add(r.layers);
    }
    return r;
}

void LockstepRun::startEpoch() {
    epochLossSum_ = 0.0;
    epochLossCount_ = 0;
}

LockstepSummary LockstepRun::summary() const {
    LockstepSummary s;
    s.mode = mode_;
    s.finalLoss = epochLossCount_ ? epochLossSum_ / static_cast<double>(epochLossCount_)
                                  : std::numeric_limits<double>::quiet_NaN();
    s.layers = means_.means();
    return s;
}

}  // namespace ampscope
