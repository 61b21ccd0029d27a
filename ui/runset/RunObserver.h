#pragma once
// RunObserver: what takes a run's records, so that a live engine and a recorded run
// directory are fed the same way: a run of the window's run set (RunModel, which hands
// each call to its stores, runset/RunStore.h), and whatever else watches a replay (a
// report's scan of a run). Views do not implement it: they read the run set's stores.
//
// Contract (all calls on the GUI thread, in this order per run; RecordDispatcher makes
// them, the same way for a live run, an opened or followed run and a report):
//   beginRun once (forget the previous run), then any number of ticks, each being
//   appendSteps / appendEpoch / takeModelModules / takeRecord in the run directory's
//   order, then exactly one endOfBatch (a run of the set then says what changed, once).
// - appendSteps: steps in increasing step order; never called with an empty vector.
// - takeModelModules: a user's TorchScript model's module tree (the model_modules record,
//   read once by the dispatcher for every view), right after run_info.
// - takeRecord: run-directory records other than steps, epochs, model_modules, errors and
//   framing (run_info with the layer list, probe records, scale records, records of types
//   this build does not know...), as written in events.jsonl.
// - takeHistogram / takeUnderflow: the "histogram" and "underflow" records (most of a long
//   run after its steps), decoded once by the dispatcher (from the line's text where it
//   can: run/FlatRecordText.h) instead of as JSON by every view; never through takeRecord.
#include <QString>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "config/RunConfig.h"
#include "engine/StepMetrics.h"

namespace ampscope {
struct HistogramRecord;
struct ModelModulesRecord;
struct UnderflowRecord;
}

namespace ampscope::ui {

struct RunContext {
    RunConfig config;
    QString title;         // the run's name, for legends and captions
    QString runDirectory;  // where it is recorded; empty when it is not
    bool live = false;     // trained by this window (false: read from a run directory)
    // Opened among many runs of one config that are drawn as one band (a job's ranks, 8 or
    // more seeds: OpenedBandMembers.h): its step series keep less (StepSeries).
    bool bandMember = false;
};

class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void beginRun(const RunContext& context) = 0;
    virtual void appendSteps(const std::vector<StepMetrics>& steps) = 0;
    virtual void appendEpoch(const EpochMetrics& epoch) { (void)epoch; }
    virtual void takeModelModules(const ModelModulesRecord& record) { (void)record; }
    virtual void takeRecord(const nlohmann::json& record) { (void)record; }
    virtual void takeHistogram(const HistogramRecord& record) { (void)record; }
    virtual void takeUnderflow(const UnderflowRecord& record) { (void)record; }
    virtual void endOfBatch() = 0;
};

}  // namespace ampscope::ui
