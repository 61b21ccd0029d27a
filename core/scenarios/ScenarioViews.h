#pragma once
// INTERNAL to core/scenarios: reading and checking scenario.json's "views" (ScenarioView,
// ScenarioCatalogue.h) and the links of narrative.md, for the one scenario parser
// (ScenarioParser.h) that reads the built-ins and lesson folders alike. Every problem goes
// to the sink with its file and line; checking goes on after one where it can, so that
// check-lesson lists them all.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "scenarios/JsonLineIndex.h"
#include "scenarios/ScenarioCatalogue.h"
#include "scenarios/ScenarioProblems.h"

namespace ampscope {

// The dock ids a scenario may raise or point a view at: those of `ampscope --show-dock`
// (ui/WindowDocks.cpp) that show a run's records.
const std::vector<std::string>& scenarioDockIds();

// "views": [{"id", "run", "dock", "layer", "kind", "step", "axis", "point"}, ...]; each
// field but "id" optional, no other keys. `file` names scenario.json in problems.
std::vector<ScenarioView> parseScenarioViews(const nlohmann::json& meta, const JsonLineIndex& lines,
                                             const std::string& file, ProblemSink& sink);
// Every view's run is one of the scenario's runs, its dock a known dock, its layer and
// kind given only where that dock takes them (kinds by dock), its axis a known word, ids
// unique. `file` names scenario.json.
void checkScenarioViews(const Scenario& scenario, const JsonLineIndex& lines, const std::string& file,
                        ProblemSink& sink);
// Every link of the narrative is a view link naming one of the views, or an https: page;
// `file` names narrative.md, and each problem its line.
void checkNarrativeLinks(const Scenario& scenario, const std::string& file, ProblemSink& sink);

}  // namespace ampscope
