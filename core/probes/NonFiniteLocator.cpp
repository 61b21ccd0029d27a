#include "probes/NonFiniteLocator.h"

#include "probes/OpCapture.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <utility>

#include "probes/ProbeReadout.h"
#include "probes/TensorStatsProbe.h"

namespace ampscope {

struct NonFiniteLocator::Check {
    int64_t sequence = 0;
    size_t layerIndex = 0;
    std::string layer;
    bool backward = false;
    bool loss = false;
    // tensorStatsSlots / nonFiniteCountSlots layout: on the host for a CPU
    // tensor (computed at once, no tensor made), else on the checked device.
    std::array<double, stats_slot::kCount> hostSlots{};
    torch::Tensor deviceSlots;
};

// The checks of the current step. Gradient hooks hold it by shared_ptr, so a
// hook on a graph that outlives the locator (or its step) stays harmless: the
// step token it carries no longer matches and its check is dropped.
struct NonFiniteLocator::Pending {
    std::mutex mutex;
    uint64_t token = 0;
    int64_t sequence = 0;
    std::vector<Check> checks;

    uint64_t currentToken() {
        std::lock_guard<std::mutex> lock(mutex);
        return token;
    }
    void record(uint64_t stepToken, Check check) {
        std::lock_guard<std::mutex> lock(mutex);
        if (stepToken != token) return;
        check.sequence = sequence++;
        checks.push_back(std::move(check));
    }
    // Ends the current step for late hooks and hands its checks over.
    std::vector<Check> close() {
        std::lock_guard<std::mutex> lock(mutex);
        ++token;
        sequence = 0;
        return std::exchange(checks, {});
    }
};

namespace {

template <class CheckT>
void computeSlots(CheckT& check, const torch::Tensor& values, bool withStats) {
    OutsideCapture probeWork;  // a check is no op of the model (a precision map's capture)
    if (values.device().is_cpu())
        tensorStatsSlotsOnCpu(values, withStats, check.hostSlots.data());
    else
        check.deviceSlots = withStats ? tensorStatsSlots(values) : nonFiniteCountSlots(values);
}

}  // namespace

NonFiniteLocator::NonFiniteLocator(size_t frameCapacity)
    : frameCapacity_(frameCapacity), pending_(std::make_shared<Pending>()) {}

NonFiniteLocator::~NonFiniteLocator() {
    pending_->close();
}

void NonFiniteLocator::beginStep(int64_t step, bool statsThisStep) {
    pending_->close();  // drops anything a step that never ended left behind
    step_ = step;
    statsThisStep_ = statsThisStep;
    inStep_ = true;
}

void NonFiniteLocator::afterLayer(size_t index, const std::string& name, torch::Tensor& output) {
    if (!inStep_ || !output.defined() || !output.is_floating_point()) return;
    const uint64_t token = pending_->currentToken();
    Check forward;
    forward.layerIndex = index;
    forward.layer = name;
    computeSlots(forward, output, statsThisStep_);
    pending_->record(token, std::move(forward));
    if (!output.requires_grad()) return;
    output.register_hook(
        [pending = pending_, token, index, name, withStats = statsThisStep_](torch::Tensor grad) {
            if (!grad.defined() || !grad.is_floating_point() || pending->currentToken() != token)
                return;
            Check backward;
            backward.layerIndex = index;
            backward.layer = name;
            backward.backward = true;
            computeSlots(backward, grad, withStats);
            pending->record(token, std::move(backward));
        });
}

void NonFiniteLocator::checkLoss(const torch::Tensor& loss) {
    if (!inStep_ || !loss.defined() || !loss.is_floating_point()) return;
    Check check;
    check.loss = true;
    check.layer = std::string(kLossLayerName);
    computeSlots(check, loss, true);  // a scalar: full stats cost nothing more
    pending_->record(pending_->currentToken(), std::move(check));
}

std::optional<NonFiniteEvent> NonFiniteLocator::endStep() {
    if (!inStep_) return std::nullopt;
    inStep_ = false;
    std::vector<Check> checks = pending_->close();
    std::sort(checks.begin(), checks.end(),
              [](const Check& a, const Check& b) { return a.sequence < b.sequence; });

    // One host copy for all the checks made on a device; CPU checks are on the host already.
    ProbeReadout readout;
    std::vector<ProbeReadout::Handle> handles(checks.size());
    for (size_t k = 0; k < checks.size(); ++k)
        if (checks[k].deviceSlots.defined()) handles[k] = readout.add(checks[k].deviceSlots);
    readout.read();
    std::vector<TensorStats> stats;
    stats.reserve(checks.size());
    for (size_t k = 0; k < checks.size(); ++k)
        stats.push_back(tensorStatsFromSlots(checks[k].deviceSlots.defined() ? readout.data(handles[k])
                                                                           : checks[k].hostSlots.data()));

    lastStepHit_.reset();
    for (size_t k = 0; k < checks.size(); ++k) {
        if (stats[k].finite()) continue;
        const Check& c = checks[k];
        NonFiniteEvent e;
        e.step = step_;
        e.layer = c.layer;
        e.layerIndex = c.loss ? -1 : static_cast<int64_t>(c.layerIndex);
        e.phase = std::string(c.backward ? nonfinite_phase::kBackward : nonfinite_phase::kForward);
        e.tensor = std::string(c.loss       ? nonfinite_tensor::kLoss
                               : c.backward ? nonfinite_tensor::kGradient
                                            : nonfinite_tensor::kActivation);
        e.nan = stats[k].nan;
        e.posInf = stats[k].posInf;
        e.negInf = stats[k].negInf;
        e.numel = stats[k].numel;
        lastStepHit_ = e;
        break;
    }

    if (statsThisStep_ && frameCapacity_ > 0) {
        frames_.push_back(buildFrame(checks, stats));
        while (frames_.size() > frameCapacity_) frames_.pop_front();
    }
    if (lastStepHit_ && !firstEvent_) {
        firstEvent_ = lastStepHit_;
        framesAtFirstEvent_.assign(frames_.begin(), frames_.end());
        return firstEvent_;
    }
    return std::nullopt;
}

StatsFrame NonFiniteLocator::buildFrame(const std::vector<Check>& checks,
                                        const std::vector<TensorStats>& stats) const {
    StatsFrame frame;
    frame.step = step_;
    std::map<size_t, LayerFrame> layers;  // ordered by index: forward order
    for (size_t k = 0; k < checks.size(); ++k) {
        const Check& c = checks[k];
        if (c.loss) {
            frame.loss = stats[k];
            continue;
        }
        LayerFrame& layer = layers[c.layerIndex];
        layer.layer = c.layer;
        layer.layerIndex = static_cast<int64_t>(c.layerIndex);
        (c.backward ? layer.gradient : layer.activation) = stats[k];
    }
    for (auto& entry : layers) frame.layers.push_back(std::move(entry.second));
    return frame;
}

std::vector<StatsFrame> NonFiniteLocator::frames() const {
    return {frames_.begin(), frames_.end()};
}

void NonFiniteLocator::setFrameCapacity(size_t capacity) {
    frameCapacity_ = capacity;
    while (frames_.size() > frameCapacity_) frames_.pop_front();
}

void NonFiniteLocator::reset() {
    firstEvent_.reset();
    lastStepHit_.reset();
    frames_.clear();
    framesAtFirstEvent_.clear();
}

}  // namespace ampscope
