#pragma once
// RunStore: one kind of what a run in the set keeps (its steps, its histograms, its
// underflow counts, ...). Records come in as RunObserver calls (RecordDispatcher's rules
// and order; RunModel hands every call to each of its stores); a store keeps what the
// views read, bounded (DecimatedSeries for per-step series, ProbeSeriesStore for probe
// steps: one thinning rule each), and notes which RunChange its data made. Views read
// stores; they never keep copies of them.
//
// run_info reaches stores as takeRunInfo, read once by RunModel for all of them, never
// through takeRecord. A store that reads a record type itself does so under
// runset/ParsedRecord.h's rule, counting what does not read in malformed_ (cleared by
// its beginRun).
#include "runset/RunObserver.h"
#include "runset/ParsedRecord.h"
#include "runset/RunChanges.h"

namespace ampscope {
struct RunInfoRecord;
}

namespace ampscope::ui {

class RunStore : public RunObserver {
public:
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void endOfBatch() override {}
    virtual void takeRunInfo(const RunInfoRecord& info) { (void)info; }
    // The records of the store's types that did not read since the run began.
    int64_t malformedRecords() const { return malformed_.count(); }
    // What changed since the last call (RunModel asks after every batch).
    RunChanges takeChanges() {
        const RunChanges changes = changes_;
        changes_ = {};
        return changes;
    }

protected:
    void noteChange(RunChange change) { changes_ |= change; }

    MalformedRecords malformed_{"run set"};

private:
    RunChanges changes_;
};

}  // namespace ampscope::ui
