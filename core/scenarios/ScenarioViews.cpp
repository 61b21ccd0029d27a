#include "scenarios/ScenarioViews.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

namespace ampscope {

namespace {

// [words](view:ID): the words may not hold ']' and the id is letters, digits, '-', '_'.
const std::regex& viewLink() {
    static const std::regex link(R"(\[([^\]]*)\]\(view:([A-Za-z0-9_-]+)\))");
    return link;
}

std::string optionalString(const nlohmann::json& object, const char* key, const std::string& path) {
    const auto it = object.find(key);
    if (it == object.end()) return {};
    if (!it->is_string()) brokenScenarioFile(path, std::string("view field \"") + key + "\" must be a string");
    return it->get<std::string>();
}

}  // namespace

void brokenScenarioFile(const std::string& path, const std::string& what) {
    throw std::logic_error("built-in scenario file " + path + ": " + what);
}

std::vector<ScenarioView> parseScenarioViews(const nlohmann::json& meta, const std::string& path) {
    std::vector<ScenarioView> views;
    const auto list = meta.find("views");
    if (list == meta.end()) return views;
    if (!list->is_array()) brokenScenarioFile(path, "\"views\" must be a list of objects");
    static const std::vector<std::string> kKeys = {"id", "run", "dock", "layer", "kind", "step", "axis", "point"};
    for (const auto& entry : *list) {
        if (!entry.is_object()) brokenScenarioFile(path, "\"views\" must hold objects");
        for (const auto& [key, value] : entry.items())
            if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
                brokenScenarioFile(path, "a view has the unknown key \"" + key + "\"");
        ScenarioView view;
        view.id = optionalString(entry, "id", path);
        if (view.id.empty()) brokenScenarioFile(path, "every view needs a non-empty \"id\"");
        view.run = optionalString(entry, "run", path);
        view.dock = optionalString(entry, "dock", path);
        view.layer = optionalString(entry, "layer", path);
        view.kind = optionalString(entry, "kind", path);
        view.axis = optionalString(entry, "axis", path);
        view.point = optionalString(entry, "point", path);
        if (const auto step = entry.find("step"); step != entry.end()) {
            if (!step->is_number_integer() || step->get<int64_t>() < 0)
                brokenScenarioFile(path, "view " + view.id + ": \"step\" must be a step number");
            view.step = step->get<int64_t>();
        }
        views.push_back(std::move(view));
    }
    return views;
}

void checkScenarioViews(const Scenario& scenario, const std::string& path) {
    static const std::vector<std::string> kKinds = {"", "param_grad", "param_grad_scaled", "activation_grad",
                                                    "activation"};
    std::vector<std::string> ids;
    for (const ScenarioView& view : scenario.views) {
        const std::string what = "view " + view.id + ": ";
        if (std::find(ids.begin(), ids.end(), view.id) != ids.end()) brokenScenarioFile(path, what + "id used twice");
        ids.push_back(view.id);
        if (!view.run.empty() && std::none_of(scenario.runs.begin(), scenario.runs.end(),
                                              [&](const ScenarioRun& run) { return run.name == view.run; }))
            brokenScenarioFile(path, what + "\"run\" " + view.run + " is not one of the scenario's runs");
        if (std::find(kKinds.begin(), kKinds.end(), view.kind) == kKinds.end())
            brokenScenarioFile(path, what + "unknown \"kind\" " + view.kind);
        if (!view.axis.empty() && view.axis != "log" && view.axis != "linear")
            brokenScenarioFile(path, what + "\"axis\" must be log or linear");
    }
    for (const std::string& link : narrativeViewLinks(scenario.narrative))
        if (!scenario.view(link))
            brokenScenarioFile(path, "narrative.md links to the view " + link + ", which \"views\" lacks");
}

const ScenarioView* Scenario::view(const std::string& id) const {
    for (const ScenarioView& v : views)
        if (v.id == id) return &v;
    return nullptr;
}

const std::string& Scenario::startRun() const {
    if (!views.empty() && !views.front().run.empty()) return views.front().run;
    return runs.front().name;
}

std::string plainNarrative(const std::string& markdown) {
    return std::regex_replace(markdown, viewLink(), "$1");
}

std::vector<std::string> narrativeViewLinks(const std::string& markdown) {
    std::vector<std::string> ids;
    for (std::sregex_iterator it(markdown.begin(), markdown.end(), viewLink()), end; it != end; ++it)
        ids.push_back((*it)[2].str());
    return ids;
}

}  // namespace ampscope
