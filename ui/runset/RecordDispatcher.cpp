#include "runset/RecordDispatcher.h"

#include <nlohmann/json.hpp>

#include "probes/ProbeRecords.h"
#include "run/EventSchema.h"
#include "run/ModelModulesRecord.h"
#include "run/RecordCodec.h"
#include "run/RunLifecycleRecords.h"
#include "run/StepRecordCodec.h"

namespace ampscope::ui {

RecordDispatcher::RecordDispatcher(const std::vector<RunObserver*>& observers, Hooks hooks)
    : observers_(observers), hooks_(std::move(hooks)) {}

void RecordDispatcher::beginRun(const RunContext& context) {
    pendingSteps_.clear();
    stepsDelivered_ = 0;
    lastStep_ = 0;
    malformed_.clear();
    for (RunObserver* observer : observers_) observer->beginRun(context);
}

void RecordDispatcher::take(const nlohmann::json& record) {
    const std::string type = record_codec::typeOf(record);
    if (type.empty()) {
        malformed_.note(type, "not a JSON object with a string \"type\"");
        return;
    }
    if (type == event_type::kStep) {
        if (auto step = parsedRecord(record, stepFromJson, malformed_)) takeStep(std::move(*step));
        return;
    }
    if (type == event_type::kRunStart || type == event_type::kRunEnd) return;
    if (type == probe_record_type::kOpDtypes) return;  // recordTypesNoViewReads()
    if (type == probe_record_type::kHistogram) {
        if (auto histogram = parsedRecord(record, histogramRecordFromJson, malformed_)) takeHistogram(*histogram);
        return;
    }
    if (type == probe_record_type::kUnderflow) {
        if (auto underflow = parsedRecord(record, underflowRecordFromJson, malformed_)) takeUnderflow(*underflow);
        return;
    }
    flushSteps();
    if (type == event_type::kEpoch) {
        if (auto epoch = parsedRecord(record, epochFromJson, malformed_))
            for (RunObserver* observer : observers_) observer->appendEpoch(*epoch);
        return;
    }
    if (type == event_type::kModelModules) {
        if (const auto modules = parsedRecord(record, modelModulesFromJson, malformed_))
            for (RunObserver* observer : observers_) observer->takeModelModules(*modules);
        return;
    }
    if (type == event_type::kError) {
        if (const auto error = parsedRecord(record, errorFromJson, malformed_); error && hooks_.error)
            hooks_.error(error->message);
        return;
    }
    for (RunObserver* observer : observers_) observer->takeRecord(record);
}

void RecordDispatcher::takeStep(StepMetrics step) {
    pendingSteps_.push_back(std::move(step));
}

void RecordDispatcher::takeHistogram(const HistogramRecord& record) {
    flushSteps();
    for (RunObserver* observer : observers_) observer->takeHistogram(record);
}

void RecordDispatcher::takeUnderflow(const UnderflowRecord& record) {
    flushSteps();
    for (RunObserver* observer : observers_) observer->takeUnderflow(record);
}

void RecordDispatcher::take(ParsedRecord&& record) {
    if (auto* step = std::get_if<StepMetrics>(&record))
        takeStep(std::move(*step));
    else if (const auto* histogram = std::get_if<HistogramRecord>(&record))
        takeHistogram(*histogram);
    else if (const auto* underflow = std::get_if<UnderflowRecord>(&record))
        takeUnderflow(*underflow);
    else
        take(std::get<nlohmann::json>(record));
}

bool RecordDispatcher::takeLine(std::string_view line) {
    if (!parseCommonRecordLine(line, parsedLine_)) return false;
    take(std::move(parsedLine_));
    return true;
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
    const auto takeLine = [&](std::string_view line) { return dispatcher.takeLine(line); };
    while (reader.visit(onRecord, takeLine, batchRecords)) {
        dispatcher.flushSteps();
        if (afterBatch) afterBatch();
    }
    dispatcher.flushSteps();
}

std::vector<std::string> recordTypesNoViewReads() {
    return {std::string(probe_record_type::kOpDtypes)};
}

void dispatchParsedRun(ParsedRunReader& reader, RecordDispatcher& dispatcher,
                       const std::function<void(const nlohmann::json&)>& alsoSee,
                       const std::function<void()>& afterBatch) {
    std::vector<ParsedRecord> batch;
    while (reader.next(batch)) {
        for (ParsedRecord& record : batch) {
            if (const auto* json = std::get_if<nlohmann::json>(&record); json && alsoSee) {
                dispatcher.take(*json);
                alsoSee(*json);
                continue;
            }
            dispatcher.take(std::move(record));
        }
        dispatcher.flushSteps();
        if (afterBatch) afterBatch();
    }
}

}  // namespace ampscope::ui
