#include "runset/NonFiniteFacts.h"

#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"
#include "run/EventSchema.h"
#include "run/ModelModulesRecord.h"
#include "views/ParsedRecord.h"

namespace ampscope::ui {

void NonFiniteFacts::beginRun(const RunContext& context) {
    record_.reset();
    layers_.clear();
    keptInFp32_.clear();
    for (const auto& name : context.config.precision.keep_fp32) keptInFp32_ << QString::fromStdString(name);
    locateMode_ = context.config.probes.locate_nonfinite;
    recordedRun_ = false;
    modules_.clear();
    modulesFile_.clear();
    noteChange(RunChange::NonFinite);
}

void NonFiniteFacts::takeModelModules(const ModelModulesRecord& record) {
    modules_ = record.modules;
    modulesFile_ = QString::fromStdString(record.path);
    noteChange(RunChange::NonFinite);
}

void NonFiniteFacts::takeRecord(const nlohmann::json& record) {
    const std::string type = record_codec::typeOf(record);
    if (type == event_type::kRunInfo) {
        if (layers_.takeRunInfo(record)) noteChange(RunChange::NonFinite);
        recordedRun_ = record.value(std::string(kSourceField), std::string()) == record_source::kPyTorchRecorder;
        return;
    }
    if (type != probe_record_type::kNonFinite || record_) return;  // the first one counts
    record_ = parsedRecord("NaN inspector", record, nonFiniteRecordFromJson);
    if (!record_) return;
    for (const StatsFrame& frame : record_->frames)
        for (const LayerFrame& layer : frame.layers) layers_.add(QString::fromStdString(layer.layer));
    noteChange(RunChange::NonFinite);
}

}  // namespace ampscope::ui
