#pragma once
// Feeding a recorded run's records to views, the way MainWindow feeds an opened run
// directory (RunObserver.h): steps batched between other records, epochs as epochs,
// run_info and probe records through takeRecord, framing and error records not at all.
// Used to build a report's plots offscreen from the same views the window shows.
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "RunObserver.h"

namespace ampscope::ui {

// beginRun(context), every record in order, then one endOfBatch, on each observer.
void replayRun(const RunContext& context, const std::vector<nlohmann::json>& records,
               const std::vector<RunObserver*>& observers);

}  // namespace ampscope::ui
