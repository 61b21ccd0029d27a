#include "runset/RunInfoFacts.h"

#include <nlohmann/json.hpp>

#include "RunFacts.h"
#include "run/RecordCodec.h"
#include "run/EventSchema.h"

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

void RunInfoFacts::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) != event_type::kRunInfo) return;
    device_ = QString::fromStdString(record.value("device", std::string())).toUpper();
    deviceName_ = QString::fromStdString(record.value("device_name", std::string()));
    threads_ = record.value("threads", 0);
    if (record.contains("precision") && record["precision"].is_object()) {
        const auto& p = record["precision"];
        execution_ = {p.value("emulated", false), p.value("execution", std::string())};
        mode_ = QString::fromStdString(p.value("mode", std::string()));
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
