#include "scenarios/ScenarioCatalogue.h"

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "config/ConfigText.h"
#include "scenarios/EmbeddedScenarioFiles.h"
#include "scenarios/ScenarioViews.h"

namespace ampscope {
namespace {

class Files {
public:
    Files() {
        for (const auto& file : embeddedScenarioFiles()) byPath_[file.path] = file.text;
    }

    std::string text(const std::string& path) const {
        const auto it = byPath_.find(path);
        if (it == byPath_.end()) brokenScenarioFile(path, "missing");
        return std::string(it->second);
    }

    nlohmann::json json(const std::string& path) const {
        try {
            return nlohmann::json::parse(text(path));
        } catch (const nlohmann::json::exception& e) {
            brokenScenarioFile(path, std::string("not valid JSON: ") + e.what());
        }
    }

private:
    std::map<std::string, std::string_view> byPath_;
};

std::string stringField(const nlohmann::json& object, const char* key, const std::string& path) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string() || it->get<std::string>().empty())
        brokenScenarioFile(path, std::string("\"") + key + "\" must be a non-empty string");
    return it->get<std::string>();
}

Scenario loadScenario(const Files& files, const std::string& name) {
    const std::string metaPath = name + "/scenario.json";
    const nlohmann::json meta = files.json(metaPath);
    if (!meta.is_object()) brokenScenarioFile(metaPath, "must be a JSON object");
    Scenario scenario;
    scenario.name = stringField(meta, "name", metaPath);
    if (scenario.name != name) brokenScenarioFile(metaPath, "\"name\" must be the directory's name \"" + name + "\"");
    scenario.summary = stringField(meta, "summary", metaPath);
    if (scenario.summary.find('\n') != std::string::npos) brokenScenarioFile(metaPath, "\"summary\" must be one line");
    scenario.narrative = files.text(name + "/narrative.md");
    if (const auto docks = meta.find("docks"); docks != meta.end()) {
        if (!docks->is_array()) brokenScenarioFile(metaPath, "\"docks\" must be a list of dock names");
        for (const auto& dock : *docks) {
            if (!dock.is_string() || dock.get<std::string>().empty())
                brokenScenarioFile(metaPath, "\"docks\" must hold dock names");
            scenario.docks.push_back(dock.get<std::string>());
        }
    }
    scenario.views = parseScenarioViews(meta, metaPath);  // checked once the runs are read
    const auto runs = meta.find("runs");
    if (runs == meta.end() || !runs->is_array() || runs->empty())
        brokenScenarioFile(metaPath, "\"runs\" must be a non-empty list of run names");
    for (const auto& run : *runs) {
        if (!run.is_string()) brokenScenarioFile(metaPath, "\"runs\" must hold strings");
        ScenarioRun entry;
        entry.name = run.get<std::string>();
        const std::string configPath = name + "/" + entry.name + ".json";
        entry.configText = files.text(configPath);
        try {
            entry.config = configFromJson(files.json(configPath));
        } catch (const InputError& e) {
            brokenScenarioFile(configPath, e.what());
        }
        scenario.runs.push_back(std::move(entry));
    }
    checkScenarioViews(scenario, metaPath);
    return scenario;
}

std::vector<Scenario> loadAll() {
    const Files files;
    const nlohmann::json index = files.json("index.json");
    const auto names = index.find("scenarios");
    if (!index.is_object() || names == index.end() || !names->is_array())
        brokenScenarioFile("index.json", "must be {\"scenarios\": [NAME, ...]}");
    std::vector<Scenario> scenarios;
    for (const auto& name : *names) {
        if (!name.is_string()) brokenScenarioFile("index.json", "\"scenarios\" must hold strings");
        scenarios.push_back(loadScenario(files, name.get<std::string>()));
    }
    return scenarios;
}

}  // namespace

const std::vector<Scenario>& builtInScenarios() {
    static const std::vector<Scenario> scenarios = loadAll();
    return scenarios;
}

const Scenario* findScenario(const std::string& name) {
    for (const auto& scenario : builtInScenarios())
        if (scenario.name == name) return &scenario;
    return nullptr;
}

std::vector<std::string> scenarioNames() {
    std::vector<std::string> names;
    for (const auto& scenario : builtInScenarios()) names.push_back(scenario.name);
    return names;
}

const Scenario& scenarioNamed(const std::string& name) {
    if (const Scenario* scenario = findScenario(name)) return *scenario;
    throw InputError("unknown scenario " + config_text::quoted(name) +
                     " (valid: " + config_text::joined(scenarioNames()) + ")");
}

std::vector<NamedRunConfig> scenarioRunConfigs(const Scenario& scenario,
                                               const std::vector<std::string>& overrides) {
    std::vector<NamedRunConfig> configs;
    for (const auto& run : scenario.runs) {
        try {
            nlohmann::json document = nlohmann::json::parse(run.configText);
            for (const auto& assignment : overrides) applyOverride(document, assignment);
            configs.push_back({run.name, configFromJson(document)});
        } catch (const InputError& e) {
            throw InputError("scenario " + scenario.name + ", run " + run.name + ": " + e.what());
        }
    }
    return configs;
}

}  // namespace ampscope
