#include "report/RunReplay.h"

#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"

namespace ampscope::ui {

void replayRun(const RunContext& context, const std::vector<nlohmann::json>& records,
               const std::vector<RunObserver*>& observers) {
    for (RunObserver* observer : observers) observer->beginRun(context);
    std::vector<StepMetrics> steps;
    const auto flushSteps = [&] {
        if (steps.empty()) return;
        for (RunObserver* observer : observers) observer->appendSteps(steps);
        steps.clear();
    };
    for (const nlohmann::json& record : records) {
        const std::string type = recordType(record);
        if (type == "step") {
            if (auto step = stepFromRecord(record)) steps.push_back(*step);
        } else if (type == "epoch") {
            flushSteps();
            if (auto epoch = epochFromRecord(record))
                for (RunObserver* observer : observers) observer->appendEpoch(*epoch);
        } else if (type == "run_start" || type == "run_end" || type == "error" || type.empty()) {
            // Framing and errors: the report states them in text.
        } else {
            flushSteps();
            for (RunObserver* observer : observers) observer->takeRecord(record);
        }
    }
    flushSteps();
    for (RunObserver* observer : observers) observer->endOfBatch();
}

}  // namespace ampscope::ui
