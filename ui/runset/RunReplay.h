#pragma once
// Feeding a recorded run's records to observers through the window's RecordDispatcher
// (the same calls, order and rules as an opened run in the window), without a run set:
// what a test compares a live run's calls against.
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "runset/RunObserver.h"

namespace ampscope::ui {

// beginRun(context), every record in order, then one endOfBatch, on each observer.
void replayRun(const RunContext& context, const std::vector<nlohmann::json>& records,
               const std::vector<RunObserver*>& observers);

// The same, streamed from a run directory (ParsedRunReader: parsed on a thread of its own,
// the records not kept, so a 10^6-step run replays in bounded memory; step, histogram and
// underflow lines are read without JSON); alsoSee, when given, sees the records that
// came as JSON too. Throws InputError as readRunDirectory does.
void replayRunDirectory(const RunContext& context, const std::string& directory,
                        const std::vector<RunObserver*>& observers,
                        const std::function<void(const nlohmann::json&)>& alsoSee = {});

}  // namespace ampscope::ui
