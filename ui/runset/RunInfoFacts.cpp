#include "runset/RunInfoFacts.h"

#include "runset/RunFacts.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope::ui {

void RunInfoFacts::beginRun(const RunContext& context) {
    const RunConfig& config = context.config;
    device_ = runsOnCuda(config) ? QStringLiteral("CUDA") : QStringLiteral("CPU");
    deviceName_ = QString::fromStdString(deviceText(config));
    threads_ = threadsFor(config);
    mode_ = QString::fromStdString(config.precision.mode);
    execution_ = executionFor(config);
    fromRunInfo_ = false;
    noteChange(RunChange::Identity);
}

void RunInfoFacts::takeRunInfo(const RunInfoRecord& info) {
    device_ = QString::fromStdString(info.device).toUpper();
    deviceName_ = QString::fromStdString(info.deviceName);
    threads_ = info.threads;
    if (!info.mode.empty()) {  // a run_info without its precision object keeps the config's
        execution_ = {info.emulated, info.execution};
        mode_ = QString::fromStdString(info.mode);
    }
    fromRunInfo_ = true;
    noteChange(RunChange::Identity);
}

bool RunInfoFacts::recorded() const {
    return isRecordedExecution(execution_.how);
}

QString RunInfoFacts::executionWord() const {
    if (recorded()) return QStringLiteral("RECORDED");
    return execution_.emulated ? QStringLiteral("EMULATED") : QStringLiteral("REAL");
}

}  // namespace ampscope::ui
