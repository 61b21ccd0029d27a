#include "runset/RunOutcome.h"

#include <algorithm>
#include <cmath>


namespace ampscope::ui {

void RunOutcome::beginRun(const RunContext&) {
    start_.reset();
    info_.reset();
    summary_.reset();
    fromSteps_ = {};
    trainSeconds_ = samples_ = 0.0;
}

void RunOutcome::appendSteps(const std::vector<StepMetrics>& steps) {
    for (const StepMetrics& m : steps) {
        fromSteps_.steps = std::max(fromSteps_.steps, m.step);
        if (std::isfinite(m.loss)) fromSteps_.finalTrainLoss = m.loss;
        if (m.stepSkipped) ++fromSteps_.skippedSteps;
        if (m.scaleChange == ScaleChange::Backoff) ++fromSteps_.scaleBackoffs;
        if (m.scaleChange == ScaleChange::Growth) ++fromSteps_.scaleGrowths;
        fromSteps_.finalScale = m.scaleAfter;
        if (std::isfinite(m.stepSeconds) && std::isfinite(m.samplesPerSecond)) {
            trainSeconds_ += m.stepSeconds;
            samples_ += m.stepSeconds * m.samplesPerSecond;
        }
    }
}

// An epoch's validation: NaN where it was not finite or not measured.
void RunOutcome::appendEpoch(const EpochMetrics& epoch) {
    fromSteps_.valLoss = epoch.valLoss;
    fromSteps_.valAccuracy = epoch.valAccuracy;
}

void RunOutcome::takeRunInfo(const RunInfoRecord& info) {
    if (!info_) info_ = info;
}

void RunOutcome::takeRunStart(const RunStartRecord& start) {
    start_ = start;
}

void RunOutcome::takeSummary(const SummaryReading& summary) {
    summary_ = summary;
    noteChange(RunChange::Identity);
}

RunResults RunOutcome::results() const {
    if (!summary_) {
        RunResults r = fromSteps_;
        if (trainSeconds_ > 0) {
            r.wallSeconds = trainSeconds_;  // training-step time only: the wall clock is unknown
            r.samplesPerSecond = samples_ / trainSeconds_;
        }
        return r;
    }
    const RunSummary& s = summary_->summary;
    RunResults r;
    r.steps = s.steps;
    r.wallSeconds = s.wallSeconds;
    r.samplesPerSecond = s.samplesPerSecond;
    r.peakMemoryBytes = s.peakMemoryBytes;
    r.finalTrainLoss = summary_->finalTrainLoss;
    r.valLoss = summary_->valLoss;
    r.valAccuracy = summary_->valAccuracy;
    r.skippedSteps = s.skippedSteps;
    r.finalScale = summary_->finalScale;
    r.scaleBackoffs = s.scaleBackoffs;
    r.scaleGrowths = s.scaleGrowths;
    return r;
}

}  // namespace ampscope::ui
