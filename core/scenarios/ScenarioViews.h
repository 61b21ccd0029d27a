#pragma once
// INTERNAL to core/scenarios: reading and checking scenario.json's "views" (ScenarioView,
// ScenarioCatalogue.h). A built-in scenario whose views do not read is a bug of this
// build: std::logic_error naming the file, as for every other built-in file.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "scenarios/ScenarioCatalogue.h"

namespace ampscope {

[[noreturn]] void brokenScenarioFile(const std::string& path, const std::string& what);

// "views": [{"id", "run", "dock", "layer", "kind", "step", "axis", "point"}, ...]; each
// field but "id" optional, no other keys.
std::vector<ScenarioView> parseScenarioViews(const nlohmann::json& meta, const std::string& path);
// Every view's run is one of the scenario's runs, its kind and axis are known words,
// ids are unique, and every view link of the narrative names a view.
void checkScenarioViews(const Scenario& scenario, const std::string& path);

}  // namespace ampscope
