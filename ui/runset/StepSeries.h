#pragma once
// StepSeries: what a run in the set keeps of its steps and epochs, for the Loss, Loss
// scale and Throughput docks and the run list: one DecimatedSeries per quantity (bounded:
// each bucket's first point, extremes and first non-finite value; the full data stays in
// the run directory), the epochs, and the loss-scale changes.
//
// Contract:
// - loss: the training loss per step; smoothedLoss: a debiased EMA (as TensorBoard's,
//   factor kSmoothing) over the finite losses, so it starts at the first loss.
// - skippedSteps (y = 0) and nonFiniteLosses (y = 1): one point per step whose optimizer
//   step was skipped, or whose loss was NaN/Inf: marks, not values.
// - validationLoss, validationAccuracyPercent: one point per epoch (an accuracy only
//   when the set reports one).
// - log2Scale: log2 of the scale each step's loss was multiplied by (NaN for a scale
//   <= 0); growthTracker: the tracker after the step; backoffMarks and growthMarks: the
//   log2 scale at each change; backoffs() and growths() list the first kMaxListedChanges
//   of each, with the first non-finite layer of a backoff.
// - samplesPerSecond and stepMilliseconds: raw per step; gradNorm and gradNormClipped:
//   the global norm of the unscaled gradients before and after clipping.
// - firstNonFiniteLossStep: the first step whose loss was not finite (-1: none).
// - Every series keeps DecimatedSeries' default bucket limit, or for a run opened as a
//   member of a band (RunContext::bandMember) kBandMemberBucketLimit.
#include <optional>
#include <string>
#include <vector>

#include "runset/DecimatedSeries.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

struct ScaleEvent {
    int64_t step = 0;
    double scale = 1.0;       // the scale the step ran with
    double scaleAfter = 1.0;  // after update()
    std::string layer;        // backoffs: first non-finite layer ("" if unknown)
};

class StepSeries : public RunStore {
public:
    static constexpr double kSmoothing = 0.95;
    static constexpr std::size_t kMaxListedChanges = 10000;

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;
    void appendEpoch(const EpochMetrics& epoch) override;

    const DecimatedSeries& loss() const { return loss_; }
    const DecimatedSeries& smoothedLoss() const { return smoothed_; }
    const DecimatedSeries& skippedSteps() const { return skipped_; }
    const DecimatedSeries& nonFiniteLosses() const { return nonFinite_; }
    const DecimatedSeries& validationLoss() const { return valLoss_; }
    const DecimatedSeries& validationAccuracyPercent() const { return valAccuracy_; }
    const std::vector<EpochMetrics>& epochs() const { return epochs_; }

    const DecimatedSeries& log2Scale() const { return log2Scale_; }
    const DecimatedSeries& growthTracker() const { return tracker_; }
    const DecimatedSeries& backoffMarks() const { return backoffMarks_; }
    const DecimatedSeries& growthMarks() const { return growthMarks_; }
    const std::vector<ScaleEvent>& backoffs() const { return backoffs_; }
    const std::vector<ScaleEvent>& growths() const { return growths_; }

    const DecimatedSeries& samplesPerSecond() const { return samplesPerSecond_; }
    const DecimatedSeries& stepMilliseconds() const { return stepMilliseconds_; }
    const DecimatedSeries& gradNorm() const { return gradNorm_; }
    const DecimatedSeries& gradNormClipped() const { return gradNormClipped_; }

    // "dynamic" | "static" | "off", as the engine resolves the run's config.
    const std::string& scalerKind() const { return scalerKind_; }
    int64_t growthInterval() const { return growthInterval_; }
    // A classification set (cross-entropy loss) rather than a regression (mean squared).
    bool classification() const { return classification_; }
    int64_t stepCount() const { return loss_.appendedCount(); }
    int64_t lastStep() const { return lastStep_; }
    int64_t firstNonFiniteLossStep() const { return firstNonFiniteLoss_; }

private:
    DecimatedSeries loss_, smoothed_, skipped_, nonFinite_, valLoss_, valAccuracy_;
    DecimatedSeries log2Scale_, tracker_, backoffMarks_, growthMarks_;
    DecimatedSeries samplesPerSecond_, stepMilliseconds_, gradNorm_, gradNormClipped_;
    std::vector<EpochMetrics> epochs_;
    std::vector<ScaleEvent> backoffs_, growths_;
    std::string scalerKind_ = "off";
    int64_t growthInterval_ = 2000;
    bool classification_ = true;
    double ema_ = 0.0;
    double emaWeight_ = 0.0;  // 1 - kSmoothing^n: the debiasing divisor
    int64_t lastStep_ = 0;
    int64_t firstNonFiniteLoss_ = -1;
};

}  // namespace ampscope::ui
