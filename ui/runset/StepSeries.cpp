#include "runset/StepSeries.h"

#include <cmath>

#include "runset/RunFacts.h"

namespace ampscope::ui {

void StepSeries::beginRun(const RunContext& context) {
    // A member of a band (a job's ranks, many seeds) keeps a smaller bucket limit: hundreds
    // of such runs are open at once, and the band drawn from them needs only their bucket
    // firsts at about pixel resolution (DecimatedSeries::kBandMemberBucketLimit); what any
    // thinned series keeps (each bucket's extremes and first non-finite point, so the first
    // non-finite step exactly) still draws a member alone. A run of its own keeps the default.
    const std::size_t limit =
        context.bandMember ? DecimatedSeries::kBandMemberBucketLimit : DecimatedSeries::kDefaultBucketLimit;
    for (DecimatedSeries* s : {&loss_, &smoothed_, &skipped_, &nonFinite_, &valLoss_, &valAccuracy_,
                               &log2Scale_, &tracker_, &backoffMarks_, &growthMarks_,
                               &samplesPerSecond_, &stepMilliseconds_, &gradNorm_, &gradNormClipped_})
        *s = DecimatedSeries(limit);
    epochs_.clear();
    backoffs_.clear();
    growths_.clear();
    scalerKind_ = resolvedScalerKind(context.config.precision);
    growthInterval_ = context.config.precision.scaler.growth_interval;
    classification_ = context.config.data.dataset != "tiny_gradients";
    ema_ = 0.0;
    emaWeight_ = 0.0;
    lastStep_ = 0;
    firstNonFiniteLoss_ = -1;
    noteChange(RunChange::Steps);
}

void StepSeries::appendSteps(const std::vector<StepMetrics>& steps) {
    for (const StepMetrics& m : steps) {
        const double x = static_cast<double>(m.step);
        loss_.append(x, m.loss);
        if (std::isfinite(m.loss)) {
            ema_ = kSmoothing * ema_ + (1.0 - kSmoothing) * m.loss;
            emaWeight_ = kSmoothing * emaWeight_ + (1.0 - kSmoothing);
        } else {
            nonFinite_.append(x, 1.0);
            if (firstNonFiniteLoss_ < 0) firstNonFiniteLoss_ = m.step;
        }
        smoothed_.append(x, emaWeight_ > 0.0 ? ema_ / emaWeight_ : std::nan(""));
        if (m.stepSkipped) skipped_.append(x, 0.0);

        const double log2Scale = m.scale > 0.0 ? std::log2(m.scale) : std::nan("");
        log2Scale_.append(x, log2Scale);
        tracker_.append(x, static_cast<double>(m.growthTracker));
        if (m.scaleChange == ampscope::ScaleChange::Backoff) {
            if (backoffs_.size() < kMaxListedChanges)
                backoffs_.push_back({m.step, m.scale, m.scaleAfter, m.firstNonFiniteLayer});
            backoffMarks_.append(x, log2Scale);
        } else if (m.scaleChange == ampscope::ScaleChange::Growth) {
            if (growths_.size() < kMaxListedChanges) growths_.push_back({m.step, m.scale, m.scaleAfter, {}});
            growthMarks_.append(x, log2Scale);
        }

        samplesPerSecond_.append(x, m.samplesPerSecond);
        stepMilliseconds_.append(x, 1000.0 * m.stepSeconds);
        gradNorm_.append(x, m.gradNorm);
        gradNormClipped_.append(x, m.gradNormClipped);
        lastStep_ = std::max(lastStep_, m.step);
    }
    if (!steps.empty()) noteChange(RunChange::Steps);
}

void StepSeries::appendEpoch(const EpochMetrics& epoch) {
    epochs_.push_back(epoch);
    const double x = static_cast<double>(epoch.step);
    valLoss_.append(x, epoch.valLoss);
    if (std::isfinite(epoch.valAccuracy)) valAccuracy_.append(x, 100.0 * epoch.valAccuracy);
    noteChange(RunChange::Steps);
}

}  // namespace ampscope::ui
