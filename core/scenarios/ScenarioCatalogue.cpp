#include "scenarios/ScenarioCatalogue.h"

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "config/ConfigText.h"
#include "scenarios/EmbeddedScenarioFiles.h"
#include "scenarios/ScenarioParser.h"

namespace ampscope {
namespace {

// The files compiled in from resources/scenarios/, read by the one scenario parser.
class EmbeddedFiles : public ScenarioFileSource {
public:
    EmbeddedFiles() {
        for (const auto& file : embeddedScenarioFiles()) byPath_[file.path] = file.text;
    }

    std::optional<std::string> read(const std::string& path, std::uintmax_t limit, ProblemSink& sink) override {
        const auto it = byPath_.find(path);
        if (it == byPath_.end()) sink.refuse(path, 0, "missing");
        if (it->second.size() > limit) sink.refuse(path, 0, "larger than a lesson's limit (LessonLimits.h)");
        return std::string(it->second);
    }

private:
    std::map<std::string, std::string_view> byPath_;
};

// A built-in that does not read is a bug of this build: the first problem is a
// std::logic_error naming the file (tests catch it).
ProblemSink builtInSink() { return ProblemSink(ProblemSink::Mode::ThrowAtFirst, "built-in scenario file "); }

std::vector<Scenario> loadAll() {
    EmbeddedFiles files;
    ProblemSink sink = builtInSink();
    const nlohmann::json index = nlohmann::json::parse(*files.read("index.json", 1 << 20, sink), nullptr, false);
    const auto names = index.is_object() ? index.find("scenarios") : index.end();
    if (!index.is_object() || names == index.end() || !names->is_array())
        sink.refuse("index.json", 0, "must be {\"scenarios\": [NAME, ...]}");
    std::vector<Scenario> scenarios;
    for (const auto& name : *names) {
        if (!name.is_string()) sink.refuse("index.json", 0, "\"scenarios\" must hold strings");
        const std::string directory = name.get<std::string>();
        scenarios.push_back(*parseScenario(files, directory + "/", directory, sink));
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
    const char* kind = scenario.folder.empty() ? "scenario " : "lesson ";
    for (const auto& run : scenario.runs) {
        try {
            nlohmann::json document = nlohmann::json::parse(run.configText);
            for (const auto& assignment : overrides) applyOverride(document, assignment);
            configs.push_back({run.name, configFromJson(document)});
        } catch (const InputError& e) {
            throw InputError(kind + scenario.name + ", run " + run.name + ": " + e.what());
        }
    }
    return configs;
}

}  // namespace ampscope
