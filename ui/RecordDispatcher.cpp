#include "RecordDispatcher.h"

#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "run/StepRecordCodec.h"
#include "run/EventSchema.h"
#include "run/ModelModulesRecord.h"

namespace ampscope::ui {

RecordDispatcher::RecordDispatcher(const std::vector<RunObserver*>& observers, Hooks hooks)
    : observers_(observers), hooks_(std::move(hooks)) {}

void RecordDispatcher::beginRun(const RunContext& context) {
    pendingSteps_.clear();
    stepsDelivered_ = 0;
    lastStep_ = 0;
    malformed_ = 0;
    for (RunObserver* observer : observers_) observer->beginRun(context);
}

void RecordDispatcher::take(const nlohmann::json& record) {
    const std::string type = recordType(record);
    if (type.empty()) {
        ++malformed_;
        return;
    }
    if (type == event_type::kStep) {
        if (auto step = stepFromRecord(record))
            takeStep(std::move(*step));
        else
            ++malformed_;
        return;
    }
    if (type == event_type::kRunStart || type == event_type::kRunEnd) return;
    flushSteps();
    if (type == event_type::kEpoch) {
        if (auto epoch = epochFromRecord(record))
            for (RunObserver* observer : observers_) observer->appendEpoch(*epoch);
        return;
    }
    if (type == event_type::kModelModules) {
        if (const auto modules = modelModulesFromJson(record))
            for (RunObserver* observer : observers_) observer->takeModelModules(*modules);
        else
            ++malformed_;
        return;
    }
    if (type == event_type::kError) {
        if (hooks_.error) hooks_.error(record.value("message", std::string()));
        return;
    }
    if (type == event_type::kRunInfo && hooks_.runInfo) hooks_.runInfo(record);
    for (RunObserver* observer : observers_) observer->takeRecord(record);
}

void RecordDispatcher::takeStep(StepMetrics step) {
    pendingSteps_.push_back(std::move(step));
}

void RecordDispatcher::takeDrained(const DrainedMetrics& drained) {
    auto nextStep = drained.steps.begin();
    for (const StreamedRecord& streamed : drained.records) {
        while (nextStep != drained.steps.end() && nextStep->step <= streamed.afterStep)
            takeStep(*nextStep++);
        take(streamed.record);
    }
    for (; nextStep != drained.steps.end(); ++nextStep) takeStep(*nextStep);
}

void RecordDispatcher::flushSteps() {
    if (pendingSteps_.empty()) return;
    for (RunObserver* observer : observers_) observer->appendSteps(pendingSteps_);
    stepsDelivered_ += static_cast<int64_t>(pendingSteps_.size());
    lastStep_ = pendingSteps_.back().step;
    pendingSteps_.clear();
}

void RecordDispatcher::endBatch() {
    flushSteps();
    for (RunObserver* observer : observers_) observer->endOfBatch();
}

void dispatchRunRecords(RunRecordReader& reader, RecordDispatcher& dispatcher,
                        const std::function<void(const nlohmann::json&)>& alsoSee,
                        const std::function<void()>& afterBatch, std::size_t batchRecords) {
    const auto onRecord = [&](nlohmann::json& record) {
        dispatcher.take(record);
        if (alsoSee) alsoSee(record);
    };
    const auto takeStepLine = [&](std::string_view line) {
        StepMetrics m;
        if (!parseStepRecordText(line, m)) return false;
        dispatcher.takeStep(std::move(m));
        return true;
    };
    while (reader.visit(onRecord, takeStepLine, batchRecords)) {
        dispatcher.flushSteps();
        if (afterBatch) afterBatch();
    }
    dispatcher.flushSteps();
}

}  // namespace ampscope::ui
