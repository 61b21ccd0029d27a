#include "scenarios/ScenarioViews.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <cctype>

#include "config/ConfigText.h"
#include "scenarios/LessonLimits.h"
#include "scenarios/NarrativeLinks.h"

namespace ampscope {

namespace {

bool isViewTarget(const std::string& target) {
    if (target.rfind("view:", 0) != 0 || target.size() == 5) return false;
    return std::all_of(target.begin() + 5, target.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    });
}

// https://... (the scheme in any case, as browsers read it).
bool startsWithHttps(const std::string& target) {
    std::string scheme = target.substr(0, 8);
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return scheme == "https://";
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

// The kinds each dock that takes a layer offers (the window's choices there).
const std::vector<std::string>* kindsOfDock(const std::string& dock) {
    static const std::vector<std::string> histograms = {"param_grad", "param_grad_scaled", "activation_grad"};
    static const std::vector<std::string> underflow = {"param_grad_scaled", "activation_grad", "activation"};
    if (dock == "histograms") return &histograms;
    if (dock == "underflow") return &underflow;
    return nullptr;
}

std::string optionalString(const nlohmann::json& entry, const char* key, const std::string& path,
                           const JsonLineIndex& lines, const std::string& file, ProblemSink& sink) {
    const auto it = entry.find(key);
    if (it == entry.end()) return {};
    const std::string at = JsonLineIndex::child(path, key);
    if (!it->is_string()) {
        sink.add(file, lines.lineOf(at), at + " must be a string (got " + config_text::describe(*it) + ")");
        return {};
    }
    return it->get<std::string>();
}

}  // namespace

const std::vector<std::string>& scenarioDockIds() {
    static const std::vector<std::string> ids = {
        "configure", "loss",     "scale",       "throughput", "memory",      "updates",
        "histograms", "underflow", "nanInspector", "lockstep",  "formatSweep", "scaling",
        "blockScales", "formatExplorer", "precisionMap", "sensitivity", "scenarios", "runs"};
    return ids;
}

std::vector<ScenarioView> parseScenarioViews(const nlohmann::json& meta, const JsonLineIndex& lines,
                                             const std::string& file, ProblemSink& sink) {
    std::vector<ScenarioView> views;
    const auto list = meta.find("views");
    if (list == meta.end()) return views;
    if (!list->is_array()) {
        sink.add(file, lines.lineOf("views"), "views must be a list of objects");
        return views;
    }
    if (list->size() > lesson_limits::kMaxViews)
        sink.refuse(file, lines.lineOf("views"),
                    "views has " + std::to_string(list->size()) + " entries; a lesson holds at most " +
                        std::to_string(lesson_limits::kMaxViews));
    static const std::vector<std::string> kKeys = {"id", "run", "dock", "layer", "kind", "step", "axis", "point"};
    for (std::size_t i = 0; i < list->size(); ++i) {
        const nlohmann::json& entry = (*list)[i];
        const std::string path = JsonLineIndex::element("views", i);
        if (!entry.is_object()) {
            sink.add(file, lines.lineOf(path), path + " must be an object");
            continue;
        }
        for (const auto& [key, value] : entry.items())
            if (!contains(kKeys, key))
                sink.add(file, lines.lineOf(JsonLineIndex::child(path, key)),
                         path + " has the unknown key " + config_text::quoted(key) + " (allowed: " +
                             config_text::joined(kKeys) + ")");
        ScenarioView view;
        view.id = optionalString(entry, "id", path, lines, file, sink);
        if (view.id.empty()) sink.add(file, lines.lineOf(path), path + " needs a non-empty \"id\"");
        view.run = optionalString(entry, "run", path, lines, file, sink);
        view.dock = optionalString(entry, "dock", path, lines, file, sink);
        view.layer = optionalString(entry, "layer", path, lines, file, sink);
        view.kind = optionalString(entry, "kind", path, lines, file, sink);
        view.axis = optionalString(entry, "axis", path, lines, file, sink);
        view.point = optionalString(entry, "point", path, lines, file, sink);
        if (const auto step = entry.find("step"); step != entry.end()) {
            if (!step->is_number_integer() || step->get<int64_t>() < 0)
                sink.add(file, lines.lineOf(path + ".step"),
                         path + ".step must be a step number (got " + config_text::describe(*step) + ")");
            else
                view.step = step->get<int64_t>();
        }
        views.push_back(std::move(view));
    }
    return views;
}

void checkScenarioViews(const Scenario& scenario, const JsonLineIndex& lines, const std::string& file,
                        ProblemSink& sink) {
    std::vector<std::string> runNames;
    for (const ScenarioRun& run : scenario.runs) runNames.push_back(run.name);
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < scenario.views.size(); ++i) {
        const ScenarioView& view = scenario.views[i];
        const std::string path = JsonLineIndex::element("views", i);
        const auto at = [&](const char* key) { return lines.lineOf(JsonLineIndex::child(path, key)); };
        if (!view.id.empty() && contains(ids, view.id))
            sink.add(file, at("id"), path + ".id " + config_text::quoted(view.id) + " is the id of an earlier view");
        ids.push_back(view.id);
        if (!view.run.empty() && !contains(runNames, view.run))
            sink.add(file, at("run"), path + ".run " + config_text::quoted(view.run) + " is not a run of this lesson (runs: " +
                                          config_text::joined(runNames) + ")");
        if (!view.dock.empty() && !contains(scenarioDockIds(), view.dock))
            sink.add(file, at("dock"), path + ".dock " + config_text::quoted(view.dock) + " is not a dock (docks: " +
                                           config_text::joined(scenarioDockIds()) + ")");
        const std::vector<std::string>* kinds = kindsOfDock(view.dock);
        if (!view.layer.empty() && !kinds)
            sink.add(file, at("layer"), path + ".layer: only the histograms and underflow docks show one layer");
        if (!view.kind.empty() && !kinds)
            sink.add(file, at("kind"), path + ".kind: only the histograms and underflow docks show a kind");
        else if (!view.kind.empty() && !contains(*kinds, view.kind))
            sink.add(file, at("kind"), path + ".kind " + config_text::quoted(view.kind) + " is not a kind of the " +
                                           view.dock + " dock (kinds: " + config_text::joined(*kinds) + ")");
        if (!view.axis.empty() && view.axis != "log" && view.axis != "linear")
            sink.add(file, at("axis"), path + ".axis " + config_text::quoted(view.axis) + " must be log or linear");
    }
    for (std::size_t i = 0; i < scenario.docks.size(); ++i)
        if (!contains(scenarioDockIds(), scenario.docks[i]))
            sink.add(file, lines.lineOf(JsonLineIndex::element("docks", i)),
                     JsonLineIndex::element("docks", i) + " " + config_text::quoted(scenario.docks[i]) +
                         " is not a dock (docks: " + config_text::joined(scenarioDockIds()) + ")");
}

void checkNarrativeLinks(const Scenario& scenario, const std::string& file, ProblemSink& sink) {
    std::vector<std::string> ids;
    for (const ScenarioView& view : scenario.views) ids.push_back(view.id);
    for (const NarrativeLink& link : narrativeLinks(scenario.narrative)) {
        if (isViewTarget(link.target)) {
            const std::string id = link.target.substr(5);
            if (!contains(ids, id))
                sink.add(file, link.line, "the link to view:" + id + " names no view of scenario.json (views: " +
                                              (ids.empty() ? std::string("none") : config_text::joined(ids)) + ")");
        } else if (link.target.size() <= 8 || !startsWithHttps(link.target)) {
            sink.add(file, link.line, "the link " + config_text::quoted(link.target) +
                                          " is not allowed: a narrative links to its views (view:ID) and to https: pages only");
        }
    }
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
    std::string plain;
    std::size_t copied = 0;
    for (const NarrativeLink& link : narrativeLinks(markdown)) {
        if (link.begin < copied || link.end == 0 || !isViewTarget(link.target)) continue;
        plain.append(markdown, copied, link.begin - copied);
        plain += link.words;
        copied = link.end;
    }
    return plain + markdown.substr(copied);
}

std::vector<std::string> narrativeViewLinks(const std::string& markdown) {
    std::vector<std::string> ids;
    for (const NarrativeLink& link : narrativeLinks(markdown))
        if (link.end != 0 && isViewTarget(link.target)) ids.push_back(link.target.substr(5));
    return ids;
}

}  // namespace ampscope
