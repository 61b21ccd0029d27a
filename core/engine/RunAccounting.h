#pragma once
// Plain (no torch). What a run adds up as it trains, for summary.json: time and samples,
// the epoch's mean loss, non-finite losses, skipped steps and scale changes, the mean
// fp16 classes of each layer's scaled gradient over the probe steps, and the fp32
// shadow's agreement. Engine::train feeds it each step, probe step and epoch; finish()
// writes the totals into the summary. Kept apart from the run loop so the rules (which
// losses count, what a final loss is) are read in one place and tested alone.
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "engine/ComparisonMeans.h"
#include "engine/ProbeSnapshot.h"
#include "engine/RunSummary.h"
#include "engine/StepMetrics.h"

namespace ampscope {

class RunAccounting {
public:
    // How many recent finite losses stand for the final loss when no epoch finished.
    static constexpr std::size_t kRecentLosses = 50;

    void startEpoch();
    // One trained step of `samples` samples; s gets the running counts (steps, final scale).
    void countStep(const StepMetrics& m, int64_t samples, double scaleNow, RunSummary& s);
    // A probe step: the layers with parameters add their scaled gradients' fp16 classes.
    void countProbeStep(const ProbeSnapshot& snapshot);
    // A step the fp32 shadow compared.
    void countShadow(const std::vector<GradientComparison>& layers) { shadowMeans_.add(layers); }
    // The mean loss of the finite losses of the epoch so far (NaN: none).
    double epochTrainLoss() const;
    // An evaluated epoch: the summary's epoch count and validation numbers.
    void endEpoch(const EpochMetrics& epoch, RunSummary& s);
    // The totals, layers in `layerOrder` (forward order).
    void finish(const std::vector<std::string>& layerOrder, RunSummary& s) const;

    double trainSeconds() const { return trainSeconds_; }

private:
    struct UnderflowSums {
        double flushed = 0, subnormal = 0, overflow = 0;
        int64_t steps = 0;
        bool exact = true;
    };
    double trainSeconds_ = 0.0;
    int64_t trainSamples_ = 0;
    double epochLossSum_ = 0.0;
    int64_t epochLossCount_ = 0;
    double lastEpochLoss_ = NAN;
    std::deque<double> recentLosses_;
    std::map<std::string, UnderflowSums> underflowSums_;
    ComparisonMeans shadowMeans_;
};

}  // namespace ampscope
