#pragma once
// RunInfoFacts: the engine's (or the recorder's) facts about a run in the set, from its
// run_info record, else from its config: the device, threads, precision mode and how it
// ran (real, emulated, or recorded from a PyTorch run), for the run list's badge and the
// status bar of the focused run. Both a live run and an opened one get them the same way.
#include <QString>

#include "precision/PrecisionMode.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

class RunInfoFacts : public RunStore {
public:
    void beginRun(const RunContext& context) override;
    void takeRunInfo(const RunInfoRecord& info) override;

    // "CPU", "CUDA" (run_info's device, upper case).
    const QString& device() const { return device_; }
    const QString& deviceName() const { return deviceName_; }
    int threads() const { return threads_; }
    const QString& mode() const { return mode_; }
    const ModeExecution& execution() const { return execution_; }
    bool recorded() const;
    // run_info arrived (else the facts are the config's, as planned).
    bool fromRunInfo() const { return fromRunInfo_; }
    // "REAL", "EMULATED" or "RECORDED": the badge's word.
    QString executionWord() const;

private:
    QString device_, deviceName_, mode_;
    int threads_ = 0;
    ModeExecution execution_;
    bool fromRunInfo_ = false;
};

}  // namespace ampscope::ui
