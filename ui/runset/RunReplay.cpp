#include "runset/RunReplay.h"

#include <nlohmann/json.hpp>

#include "runset/RecordDispatcher.h"
#include "run/ParsedRunReader.h"

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
    // Parsed on its own thread, beside the views; what no view reads is passed over.
    ParsedRunReader reader(directory, 16384, recordTypesNoViewReads());
    RecordDispatcher dispatcher(observers);
    dispatcher.beginRun(context);
    dispatchParsedRun(reader, dispatcher, alsoSee);
    dispatcher.endBatch();
}

}  // namespace ampscope::ui
