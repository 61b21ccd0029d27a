#pragma once
// OneRunSet: a run set with one run at a time, fed as RecordDispatcher feeds a run (the
// RunObserver calls), for the suites of the views: a view is given `set` and the test
// feeds `*this`. beginRun replaces the run (a view's suite wants the view to forget the
// previous one); feed(context) adds another beside it instead.
#include "runset/RunObserver.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

struct OneRunSet : RunObserver {
    RunSet set;
    RunModel* run = nullptr;

    void beginRun(const RunContext& context) override {
        if (run) set.removeRun(run->id());
        run = set.addRun(context);
    }
    // Another run beside the others (compared), now the one fed and focused.
    RunModel* addRun(const RunContext& context) {
        run = set.addRun(context);
        return run;
    }
    void appendSteps(const std::vector<StepMetrics>& steps) override { run->appendSteps(steps); }
    void appendEpoch(const EpochMetrics& epoch) override { run->appendEpoch(epoch); }
    void takeModelModules(const ModelModulesRecord& record) override { run->takeModelModules(record); }
    void takeRecord(const nlohmann::json& record) override { run->takeRecord(record); }
    void takeHistogram(const HistogramRecord& record) override { run->takeHistogram(record); }
    void takeUnderflow(const UnderflowRecord& record) override { run->takeUnderflow(record); }
    void endOfBatch() override { run->endOfBatch(); }
};

}  // namespace ampscope::ui
