#pragma once
// The built-in teaching scenarios: each is one or more run configs (the
// "problem" run and the "fixed" run, or the modes compared side by side) and a short
// narrative saying what to look at, in which plot, why, and what the fix is.
//
// Contract:
// - The scenarios are read from the files compiled in from resources/scenarios/
//   (EmbeddedScenarioFiles.h): index.json lists the names in catalogue order; each
//   NAME/scenario.json gives {"name", "summary", "runs": [RUN, ...]}; each run's
//   config is NAME/RUN.json (a config.json as ampscope-cli runs it); the narrative is
//   NAME/narrative.md. The package installs the same files as editable copies in
//   /usr/share/ampscope/examples/scenarios/ (installer/Packaging.cmake).
// - builtInScenarios() parses them once, through the one scenario parser
//   (ScenarioParser.h) that also reads a teacher's lesson folder (LessonFolder.h).
//   Built-ins that do not parse or validate are a bug of this build: std::logic_error
//   naming the file and line (tests catch it).
// - scenarioNamed() throws InputError "unknown scenario 'x' (valid: a, b, ...)" for a
//   name that is not built in; one line, as the CLI prints it.
// - scenarioRunConfigs() applies "--set key.path=value" overrides to every run of a
//   scenario, through the same applyOverride/configFromJson path as a config file,
//   so a shortened scenario (train.max_steps, data.subset) is the same code path.
// No torch, no Qt.
#include <string>
#include <vector>

#include "config/RunConfig.h"

namespace ampscope {

struct ScenarioRun {
    std::string name;        // also the run's directory under the scenario's --out
    // NAME/RUN.json as shipped (a lesson's: with the files it names made absolute).
    std::string configText;
    RunConfig config;        // parsed and validated, no overrides
};

// What one part of a narrative refers to, so that the window can show it: a "views"
// entry of scenario.json, named in narrative.md by links [words](view:ID). The window
// focuses the run, raises the dock and sets the dock's choices (ScenarioViews.cpp checks
// them against the scenario: runs, kinds, axes, and that every link names a view).
struct ScenarioView {
    std::string id;
    std::string run;    // the run focused (a run name of the scenario)
    std::string dock;   // the dock raised (`ampscope --show-dock` ids)
    std::string layer;  // the layer of the Gradient histograms / Underflow docks
    // Gradient histograms: param_grad, param_grad_scaled, activation_grad; Underflow:
    // param_grad_scaled, activation_grad, activation.
    std::string kind;
    int64_t step = -1;  // the histogram slice's step (-1: the newest)
    std::string axis;   // the loss axis: "log" or "linear" ("": it chooses by itself)
    std::string point;  // Scaling / Block scales: "layer: operand (direction)"
};

struct Scenario {
    std::string name;       // "fp16-no-scaler"
    std::string summary;    // one line for lists
    std::string narrative;  // a few paragraphs (Markdown)
    // A lesson's folder, absolute (LessonFolder.h); empty for a built-in scenario.
    std::string folder;
    // The window's docks the narrative points at, raised when the scenario is loaded
    // (the ids of `ampscope --show-dock`); optional "docks" in scenario.json.
    std::vector<std::string> docks;
    std::vector<ScenarioRun> runs;
    // Optional "views" of scenario.json; the first is what the narrative starts with: the
    // window shows it when the scenario's runs have ended.
    std::vector<ScenarioView> views;
    bool comparesRuns() const { return runs.size() > 1; }
    const ScenarioView* view(const std::string& id) const;
    // The run the narrative starts with: the first view's, else the first run.
    const std::string& startRun() const;
};

// The narrative as text: its view links [words](view:ID) read as their words (the CLI
// prints it; the window follows the links).
std::string plainNarrative(const std::string& markdown);
// The view ids the narrative's links name, in order (repeats kept).
std::vector<std::string> narrativeViewLinks(const std::string& markdown);

const std::vector<Scenario>& builtInScenarios();
const Scenario* findScenario(const std::string& name);  // null when not built in
const Scenario& scenarioNamed(const std::string& name);  // InputError when not built in
std::vector<std::string> scenarioNames();
inline const char* kDefaultScenario = "amp-sanity";

struct NamedRunConfig {
    std::string name;
    RunConfig config;
};

// The scenario's runs with `overrides` ("key.path=value") applied to each. A bad
// override is an InputError naming the run: "run fp32: --set x=1: no such key 'x'".
std::vector<NamedRunConfig> scenarioRunConfigs(const Scenario& scenario,
                                               const std::vector<std::string>& overrides = {});

}  // namespace ampscope
