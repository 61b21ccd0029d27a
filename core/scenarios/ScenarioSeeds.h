#pragma once
// A scenario's "seeds": {"RUN": N, ...} in scenario.json: run RUN trained with N seeds, so
// that the window draws its band and labels the other runs against it (a lesson on "is this
// gap real?" needs the band to be in the lesson, not in a command the class has to type).
//
// Contract:
// - N is a whole number from stats::kMinimumSeeds to lesson_limits::kMaxSeedsPerRun; RUN
//   names a run of "runs". Each problem is one FILE:LINE line in the sink, nothing expanded.
// - RUN is replaced, where it stood, by N runs "RUN-seed-1" ... "RUN-seed-N"
//   (seedRunFolder), run K with seedRunConfig's seed and name (RunNaming.h) in both its
//   config and its config text, so the CLI, the window and a saved lesson see the same N runs.
// - A view naming RUN then names its first seed, "RUN-seed-1".
// - The runs after expansion stay within lesson_limits::kMaxRuns.
// No torch, no Qt.
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/JsonLineIndex.h"
#include "scenarios/ScenarioCatalogue.h"
#include "scenarios/ScenarioProblems.h"

namespace ampscope {

void expandScenarioSeeds(const nlohmann::json& meta, Scenario& scenario, const JsonLineIndex& lines,
                         const std::string& file, ProblemSink& sink);

}  // namespace ampscope
