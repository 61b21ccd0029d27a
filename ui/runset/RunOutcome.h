#pragma once
// RunOutcome: what a run in the set amounts to, for the run's report and its facts: how it
// started (its run_start record), what ran (its run_info record, kept whole), the totals
// over every one of its steps (never thinned: a count must be exact however long the
// run), and, once it ended with one, its summary.json as the summary's codec decoded it.
//
// Contract:
// - takeRunStart / takeSummary: from whoever read the run's files (RunDirectoryLoading:
//   the reader decodes run_start, the summary's codec summary.json); run_info comes as
//   to every store.
// - results(): from the summary when the run has one (what the summary does not state
//   stays empty); otherwise from the steps and epochs: steps done, the last finite loss,
//   skipped steps and scale changes counted, the scale after the last step, the last
//   epoch's validation, and the samples per second of the training steps' time (their
//   wall time: the wall clock of a run without a summary is unknown).
// - run_info counts once: the first.
// - beginRun forgets everything, the summary included.
#include <QString>
#include <cstdint>
#include <optional>

#include "engine/RunRecords.h"
#include "run/RunLifecycleRecords.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

struct RunResults {
    int64_t steps = 0;
    std::optional<double> wallSeconds;
    std::optional<double> samplesPerSecond;
    std::optional<int64_t> peakMemoryBytes;
    std::optional<double> finalTrainLoss;  // NaN: the loss was not finite
    std::optional<double> valLoss;
    std::optional<double> valAccuracy;  // in [0, 1]
    int64_t skippedSteps = 0;
    std::optional<double> finalScale;
    int64_t scaleBackoffs = 0;
    int64_t scaleGrowths = 0;
};

class RunOutcome : public RunStore {
public:
    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;
    void appendEpoch(const EpochMetrics& epoch) override;
    void takeRunInfo(const RunInfoRecord& info) override;
    void takeRunStart(const RunStartRecord& start);
    void takeSummary(const SummaryReading& summary);

    const std::optional<RunStartRecord>& start() const { return start_; }
    const std::optional<RunInfoRecord>& info() const { return info_; }
    const std::optional<SummaryReading>& summary() const { return summary_; }
    RunResults results() const;

private:
    std::optional<RunStartRecord> start_;
    std::optional<RunInfoRecord> info_;
    std::optional<SummaryReading> summary_;
    RunResults fromSteps_;
    double trainSeconds_ = 0.0, samples_ = 0.0;
};

}  // namespace ampscope::ui
