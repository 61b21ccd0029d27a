#include "report/RunReplay.h"

#include <nlohmann/json.hpp>

#include "RecordDispatcher.h"
#include "run/RunReader.h"

namespace ampscope::ui {

void replayRun(const RunContext& context, const std::vector<nlohmann::json>& records,
               const std::vector<RunObserver*>& observers) {
    RecordDispatcher dispatcher(observers);
    dispatcher.beginRun(context);
    for (const nlohmann::json& record : records) dispatcher.take(record);
    dispatcher.endBatch();
}

void replayRunDirectory(const RunContext& context, const std::string& directory,
                        const std::vector<RunObserver*>& observers,
                        const std::function<void(const nlohmann::json&)>& alsoSee) {
    RunRecordReader reader(directory);
    RecordDispatcher dispatcher(observers);
    dispatcher.beginRun(context);
    dispatchRunRecords(reader, dispatcher, alsoSee);
    dispatcher.endBatch();
}

}  // namespace ampscope::ui
