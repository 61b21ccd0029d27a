#include "report/RunReplay.h"

#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "engine/StepRecordText.h"
#include "run/RunReader.h"

namespace ampscope::ui {
namespace {

// Steps gathered between other records, so views get them in batches as live.
class Replayer {
public:
    explicit Replayer(const std::vector<RunObserver*>& observers) : observers_(observers) {}

    void take(const nlohmann::json& record) {
        const std::string type = recordType(record);
        if (type == "step") {
            if (auto step = stepFromRecord(record)) steps_.push_back(*step);
        } else if (type == "epoch") {
            flushSteps();
            if (auto epoch = epochFromRecord(record))
                for (RunObserver* observer : observers_) observer->appendEpoch(*epoch);
        } else if (type == "run_start" || type == "run_end" || type == "error" || type.empty()) {
            // Framing and errors: the report states them in text.
        } else {
            flushSteps();
            for (RunObserver* observer : observers_) observer->takeRecord(record);
        }
    }

    void takeStep(StepMetrics step) { steps_.push_back(std::move(step)); }

    void flushSteps() {
        if (steps_.empty()) return;
        for (RunObserver* observer : observers_) observer->appendSteps(steps_);
        steps_.clear();
    }

private:
    const std::vector<RunObserver*>& observers_;
    std::vector<StepMetrics> steps_;
};

}  // namespace

void replayRun(const RunContext& context, const std::vector<nlohmann::json>& records,
               const std::vector<RunObserver*>& observers) {
    for (RunObserver* observer : observers) observer->beginRun(context);
    Replayer replayer(observers);
    for (const nlohmann::json& record : records) replayer.take(record);
    replayer.flushSteps();
    for (RunObserver* observer : observers) observer->endOfBatch();
}

void replayRunDirectory(const RunContext& context, const std::string& directory,
                        const std::vector<RunObserver*>& observers,
                        const std::function<void(const nlohmann::json&)>& alsoSee) {
    RunRecordReader reader(directory);
    for (RunObserver* observer : observers) observer->beginRun(context);
    Replayer replayer(observers);
    const auto onRecord = [&](nlohmann::json& record) {
        replayer.take(record);
        if (alsoSee) alsoSee(record);
    };
    // Step lines straight into StepMetrics: nearly all of a run, and several times
    // cheaper than a JSON object each.
    const auto takeStepLine = [&](std::string_view line) {
        StepMetrics m;
        if (!parseStepRecordText(line, m)) return false;
        replayer.takeStep(std::move(m));
        return true;
    };
    while (reader.visit(onRecord, takeStepLine, 16384)) {
        // Steps go out per batch read: the views' memory is bounded, not this vector's.
        replayer.flushSteps();
    }
    replayer.flushSteps();
    for (RunObserver* observer : observers) observer->endOfBatch();
}

}  // namespace ampscope::ui
