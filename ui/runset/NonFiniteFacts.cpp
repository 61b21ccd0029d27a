#include "runset/NonFiniteFacts.h"

#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"
#include "run/EventSchema.h"
#include "run/ModelModulesRecord.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope::ui {

void NonFiniteFacts::beginRun(const RunContext& context) {
    record_.reset();
    malformed_.clear();
    layers_.clear();
    keptInFp32_.clear();
    for (const auto& name : context.config.precision.keep_fp32) keptInFp32_ << QString::fromStdString(name);
    locateMode_ = context.config.probes.locate_nonfinite;
    recordedRun_ = false;
    modules_.clear();
    modulesFile_.clear();
    modulesSha256_.clear();
    hasModulesRecord_ = false;
    noteChange(RunChange::NonFinite);
}

void NonFiniteFacts::takeModelModules(const ModelModulesRecord& record) {
    modules_ = record.modules;
    modulesFile_ = QString::fromStdString(record.path);
    modulesSha256_ = QString::fromStdString(record.sha256);
    hasModulesRecord_ = true;
    noteChange(RunChange::NonFinite);
}

void NonFiniteFacts::takeRunInfo(const RunInfoRecord& info) {
    if (layers_.takeRunInfo(info.layers)) noteChange(RunChange::NonFinite);
    recordedRun_ = info.source == record_source::kPyTorchRecorder;
}

void NonFiniteFacts::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) != probe_record_type::kNonFinite || record_) return;  // the first one counts
    record_ = parsedRecord(record, nonFiniteRecordFromJson, malformed_);
    if (!record_) return;
    for (const StatsFrame& frame : record_->frames)
        for (const LayerFrame& layer : frame.layers) layers_.add(QString::fromStdString(layer.layer));
    noteChange(RunChange::NonFinite);
}

}  // namespace ampscope::ui
