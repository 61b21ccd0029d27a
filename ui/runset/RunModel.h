#pragma once
// RunModel: one run of a RunSet, held once: who it is (name, directory, config, live or
// recorded, its colour slot, whether it is compared, how it ended) and what the views
// read of it, in one store per kind of data (StepSeries, HistogramSeries, ...), each
// bounded and thinned by its one rule. Views read it through the set; they keep no
// copies.
//
// Contract:
// - Records come in as RunObserver calls, in RecordDispatcher's rules and order, from
//   whatever feeds the run (a live engine, a run directory read or followed, a test);
//   every call goes to every store, but a run_info record, read once here
//   (runInfoFromJson), goes to every store as takeRunInfo. endOfBatch() ends a batch: the set says what the
//   stores noted (RunSet::changed(id, what)), once, if anything changed.
// - beginRun(context) starts the run over under that context (its stores forget).
// - takeRunStart, takeSummary: the run's run_start and summary.json, kept by outcome().
// - firstNonFiniteStep(): the step of the run's nonfinite record, else of its first
//   non-finite loss; -1 while it has none.
#include <QColor>
#include <QString>
#include <functional>
#include <vector>

#include "runset/RunObserver.h"
#include "runset/FormatQuantHistory.h"
#include "runset/FormatSweepSeries.h"
#include "runset/HistogramSeries.h"
#include "runset/LockstepSeries.h"
#include "runset/MemorySeries.h"
#include "runset/NonFiniteFacts.h"
#include "runset/PrecisionMapHistory.h"
#include "runset/RunChanges.h"
#include "runset/RunInfoFacts.h"
#include "runset/SensitivityHistory.h"
#include "runset/RunOutcome.h"
#include "runset/StepSeries.h"
#include "runset/UnderflowSeries.h"
#include "runset/UpdateSeries.h"

namespace ampscope::ui {

class RunModel : public RunObserver {
public:
    using Notify = std::function<void(RunId, RunChanges)>;

    RunModel(RunId id, const RunContext& context, int colourSlot, Notify notify);
    RunModel(const RunModel&) = delete;
    RunModel& operator=(const RunModel&) = delete;

    RunId id() const { return id_; }
    const RunContext& context() const { return context_; }
    const QString& name() const { return context_.title; }
    const QString& directory() const { return context_.runDirectory; }
    const RunConfig& config() const { return context_.config; }
    bool isLive() const { return context_.live; }
    int colourSlot() const { return colourSlot_; }
    QColor colour() const;
    bool isCompared() const { return compared_; }
    // "training", "following", "finished", "stopped", "error", "incomplete", or empty
    // while nobody said (an opened run whose summary has not been read).
    const QString& status() const { return status_; }
    // The run's error record's message (or the engine's failure), empty when none.
    const QString& errorMessage() const { return errorMessage_; }
    int64_t firstNonFiniteStep() const;
    // The run list's badge: "REAL · fp16 · CPU".
    QString badgeText() const;

    const StepSeries& steps() const { return steps_; }
    const HistogramSeries& histograms() const { return histograms_; }
    const UnderflowSeries& underflow() const { return underflow_; }
    const NonFiniteFacts& nonFinite() const { return nonFinite_; }
    const MemorySeries& memory() const { return memory_; }
    const LockstepSeries& lockstep() const { return lockstep_; }
    const FormatQuantHistory& formatQuant() const { return formatQuant_; }
    const FormatSweepSeries& formatSweep() const { return formatSweep_; }
    const UpdateSeries& updates() const { return updates_; }
    const PrecisionMapHistory& precisionMap() const { return precisionMap_; }
    const SensitivityHistory& sensitivity() const { return sensitivity_; }
    const RunInfoFacts& info() const { return info_; }
    const RunOutcome& outcome() const { return outcome_; }

    // RunObserver: the run's records.
    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;
    void appendEpoch(const EpochMetrics& epoch) override;
    void takeModelModules(const ModelModulesRecord& record) override;
    void takeRecord(const nlohmann::json& record) override;
    void takeHistogram(const HistogramRecord& record) override;
    void takeUnderflow(const UnderflowRecord& record) override;
    void endOfBatch() override;
    // A recorded run's run_start (as its reader decoded it) and summary.json, once the
    // run ended with one (as the summary's codec read it).
    void takeRunStart(const RunStartRecord& start);
    void takeSummary(const SummaryReading& summary);

private:
    friend class RunSet;
    std::vector<RunStore*> stores();

    RunId id_;
    RunContext context_;
    int colourSlot_;
    Notify notify_;
    bool compared_ = false;
    QString status_;
    QString errorMessage_;
    RunChanges pending_;  // Identity changes made between batches
    int64_t shownNonFiniteStep_ = -1;  // as the last notification had it
    StepSeries steps_;
    HistogramSeries histograms_;
    UnderflowSeries underflow_;
    NonFiniteFacts nonFinite_;
    MemorySeries memory_;
    LockstepSeries lockstep_;
    FormatQuantHistory formatQuant_;
    FormatSweepSeries formatSweep_;
    UpdateSeries updates_;
    PrecisionMapHistory precisionMap_;
    SensitivityHistory sensitivity_;
    RunInfoFacts info_;
    RunOutcome outcome_;
};

}  // namespace ampscope::ui
