#include "engine/RunAccounting.h"

#include <cmath>

namespace ampscope {

void RunAccounting::startEpoch() {
    epochLossSum_ = 0.0;
    epochLossCount_ = 0;
}

void RunAccounting::countStep(const StepMetrics& m, int64_t samples, double scaleNow, RunSummary& s) {
    trainSeconds_ += m.stepSeconds;
    trainSamples_ += samples;
    if (std::isfinite(m.loss)) {
        epochLossSum_ += m.loss;
        ++epochLossCount_;
        recentLosses_.push_back(m.loss);
        if (recentLosses_.size() > kRecentLosses) recentLosses_.pop_front();
    } else {
        ++s.nonFiniteLosses;
    }
    if (m.stepSkipped) ++s.skippedSteps;
    if (m.scaleChange == ScaleChange::Backoff) ++s.scaleBackoffs;
    if (m.scaleChange == ScaleChange::Growth) ++s.scaleGrowths;
    s.finalScale = scaleNow;
    s.steps = m.step;
}

void RunAccounting::countProbeStep(const ProbeSnapshot& snapshot) {
    for (const auto& layer : snapshot.layers) {
        if (!layer.hasParameters) continue;
        auto& u = underflowSums_[layer.layer];
        u.flushed += layer.gradClasses.flushedFraction();
        u.subnormal += layer.gradClasses.subnormalFraction();
        u.overflow += layer.gradClasses.overflowFraction();
        u.exact = u.exact && layer.gradClasses.exact;
        ++u.steps;
    }
}

double RunAccounting::epochTrainLoss() const {
    return epochLossCount_ ? epochLossSum_ / static_cast<double>(epochLossCount_) : NAN;
}

void RunAccounting::endEpoch(const EpochMetrics& epoch, RunSummary& s) {
    lastEpochLoss_ = epoch.trainLoss;
    s.epochs = epoch.epoch;
    s.valLoss = epoch.valLoss;
    s.valAccuracy = epoch.valAccuracy;
}

void RunAccounting::finish(const std::vector<std::string>& layerOrder, RunSummary& s) const {
    s.trainSeconds = trainSeconds_;
    for (const auto& name : layerOrder) {
        auto it = underflowSums_.find(name);
        if (it == underflowSums_.end() || it->second.steps == 0) continue;
        const auto& u = it->second;
        const double n = static_cast<double>(u.steps);
        s.underflow.push_back({name, u.flushed / n, u.subnormal / n, u.overflow / n, u.steps, u.exact});
    }
    s.shadow = shadowMeans_.means();
    s.samplesPerSecond = trainSeconds_ > 0 ? static_cast<double>(trainSamples_) / trainSeconds_ : 0.0;
    // The last epoch's mean; a run stopped before any epoch ended: its recent steps'.
    if (std::isfinite(lastEpochLoss_)) {
        s.finalTrainLoss = lastEpochLoss_;
    } else if (!recentLosses_.empty()) {
        double sum = 0;
        for (double l : recentLosses_) sum += l;
        s.finalTrainLoss = sum / static_cast<double>(recentLosses_.size());
    } else {
        s.finalTrainLoss = NAN;
    }
    if (s.epochs == 0) {
        s.valLoss = NAN;
        s.valAccuracy = NAN;
    }
}

}  // namespace ampscope
