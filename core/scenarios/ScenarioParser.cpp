#include "scenarios/ScenarioParser.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "common/InputError.h"
#include "common/JsonNesting.h"
#include "config/ConfigText.h"
#include "config/ConfigUnvalidated.h"
#include "config/ConfigValidation.h"
#include "scenarios/LessonLimits.h"
#include "scenarios/ScenarioSeeds.h"
#include "scenarios/ScenarioViews.h"

namespace ampscope {
namespace {

using nlohmann::json;

std::size_t lineAt(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 7: syntax
// error ..." without what the FILE:LINE form already says.
std::string syntaxMessage(const std::string& what) {
    std::string message = what;
    if (const auto bracket = message.find("] "); message.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
        message = message.substr(bracket + 2);
    if (const auto colon = message.find(": "); message.rfind("parse error", 0) == 0 && colon != std::string::npos)
        message = message.substr(colon + 2);
    return "not valid JSON: " + message;
}

// The text as JSON, or nullopt once the sink has the line where it stops being JSON (or
// nests deeper than any JSON of ours, where copying it would overflow the stack).
std::optional<json> parseJsonFile(const std::string& text, const std::string& file, ProblemSink& sink) {
    try {
        json document = json::parse(text);
        if (const std::size_t at = findExcessJsonNesting(text); at != std::string::npos) {
            sink.add(file, lineAt(text, at), "nested deeper than " + std::to_string(kMaxJsonNesting) + " levels");
            return std::nullopt;
        }
        return document;
    } catch (const json::parse_error& e) {
        // e.byte counts from 1 and points at the character that broke the parse.
        sink.add(file, lineAt(text, e.byte > 0 ? e.byte - 1 : 0), syntaxMessage(e.what()));
        return std::nullopt;
    } catch (const json::exception& e) {  // a number beyond double: no offset given
        sink.add(file, 0, syntaxMessage(e.what()));
        return std::nullopt;
    }
}

std::string requiredString(const json& meta, const char* key, const JsonLineIndex& lines, const std::string& file,
                           ProblemSink& sink) {
    const auto it = meta.find(key);
    if (it == meta.end() || !it->is_string() || it->get<std::string>().empty()) {
        sink.add(file, lines.lineOf(it == meta.end() ? "" : key),
                 std::string(key) + " must be a non-empty string" +
                     (it == meta.end() ? std::string(" (it is missing)") : " (got " + config_text::describe(*it) + ")"));
        return {};
    }
    return it->get<std::string>();
}

// A list of scenario.json, counted before its entries are looked at (a lesson naming 10^5
// runs is refused at once).
const json* boundedList(const json& meta, const char* key, std::size_t limit, const JsonLineIndex& lines,
                        const std::string& file, ProblemSink& sink) {
    const auto it = meta.find(key);
    if (it == meta.end()) return nullptr;
    if (!it->is_array()) {
        sink.add(file, lines.lineOf(key), std::string(key) + " must be a list (got " + config_text::describe(*it) + ")");
        return nullptr;
    }
    if (it->size() > limit)
        sink.refuse(file, lines.lineOf(key),
                    std::string(key) + " has " + std::to_string(it->size()) + " entries; a lesson holds at most " +
                        std::to_string(limit));
    return &*it;
}

std::vector<std::string> readDocks(const json& meta, const JsonLineIndex& lines, const std::string& file,
                                   ProblemSink& sink) {
    std::vector<std::string> docks;
    const json* list = boundedList(meta, "docks", lesson_limits::kMaxDocks, lines, file, sink);
    for (std::size_t i = 0; list && i < list->size(); ++i) {
        const json& dock = (*list)[i];
        if (dock.is_string() && !dock.get<std::string>().empty()) {
            docks.push_back(dock.get<std::string>());
        } else {
            const std::string path = JsonLineIndex::element("docks", i);
            sink.add(file, lines.lineOf(path), path + " must be a dock's name (got " + config_text::describe(dock) + ")");
        }
    }
    return docks;
}

// RUN.json: read as `ampscope-cli run` reads a config, every problem on its line.
ScenarioRun readRun(ScenarioFileSource& source, const std::string& name, const std::string& file, ProblemSink& sink) {
    ScenarioRun run;
    run.name = name;
    const std::optional<std::string> text = source.read(file, lesson_limits::kMaxRunConfigBytes, sink);
    if (!text) return run;
    run.configText = *text;
    std::optional<json> document = parseJsonFile(*text, file, sink);
    if (!document) return run;
    const JsonLineIndex lines(*text);
    if (source.resolveConfigFiles(*document, file, lines, sink)) run.configText = document->dump(2);
    try {
        run.config = configFromJsonUnvalidated(*document);
    } catch (const InputError& e) {
        sink.add(file, lines.lineOfMessage(e.what()), e.what());
        return run;
    }
    for (const FieldProblem& problem : validateConfig(run.config))
        sink.add(file, lines.lineOf(problem.field), problem.text());
    return run;
}

}  // namespace

bool isRunName(const std::string& name) {
    if (name.empty() || name.size() > 64 || !std::isalnum(static_cast<unsigned char>(name.front()))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    });
}

std::optional<Scenario> parseScenario(ScenarioFileSource& source, const std::string& prefix,
                                      const std::string& expectedName, ProblemSink& sink) {
    const std::string metaFile = prefix + "scenario.json";
    const std::optional<std::string> text = source.read(metaFile, lesson_limits::kMaxScenarioJsonBytes, sink);
    if (!text) return std::nullopt;
    const std::optional<json> meta = parseJsonFile(*text, metaFile, sink);
    if (!meta) return std::nullopt;
    const JsonLineIndex lines(*text);
    if (!meta->is_object()) {
        sink.add(metaFile, lines.lineOf(""), "must be a JSON object {\"name\", \"summary\", \"runs\", ...}");
        return std::nullopt;
    }
    static const std::vector<std::string> kKeys = {"name", "summary", "runs", "seeds", "views", "docks"};
    for (const auto& [key, value] : meta->items())
        if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
            sink.add(metaFile, lines.lineOf(JsonLineIndex::child("", key)),
                     config_text::key(key) + ": unknown key (allowed: " + config_text::joined(kKeys) + ")");

    Scenario scenario;
    scenario.name = requiredString(*meta, "name", lines, metaFile, sink);
    if (!expectedName.empty() && !scenario.name.empty() && scenario.name != expectedName)
        sink.add(metaFile, lines.lineOf("name"), "name must be the directory's name " + config_text::quoted(expectedName));
    if (scenario.name.find('\n') != std::string::npos) sink.add(metaFile, lines.lineOf("name"), "name must be one line");
    scenario.summary = requiredString(*meta, "summary", lines, metaFile, sink);
    if (scenario.summary.find('\n') != std::string::npos)
        sink.add(metaFile, lines.lineOf("summary"), "summary must be one line");
    scenario.docks = readDocks(*meta, lines, metaFile, sink);
    const json* runs = boundedList(*meta, "runs", lesson_limits::kMaxRuns, lines, metaFile, sink);
    if (!runs || runs->empty())
        sink.add(metaFile, lines.lineOf(runs ? "runs" : ""), "runs must be a non-empty list of run names");
    scenario.views = parseScenarioViews(*meta, lines, metaFile, sink);

    for (std::size_t i = 0; runs && i < runs->size(); ++i) {
        const json& run = (*runs)[i];
        const std::string path = JsonLineIndex::element("runs", i);
        const std::string name = run.is_string() ? run.get<std::string>() : std::string();
        if (!isRunName(name)) {
            sink.add(metaFile, lines.lineOf(path),
                     path + " " + config_text::describe(run) +
                         " is not a run name (a letter or digit, then letters, digits, '.', '_', '-')");
        } else if (std::any_of(scenario.runs.begin(), scenario.runs.end(),
                               [&](const ScenarioRun& earlier) { return earlier.name == name; })) {
            sink.add(metaFile, lines.lineOf(path), path + " " + config_text::quoted(name) + " is named twice");
        } else {
            scenario.runs.push_back(readRun(source, name, prefix + name + ".json", sink));
        }
    }
    expandScenarioSeeds(*meta, scenario, lines, metaFile, sink);
    const std::string narrativeFile = prefix + "narrative.md";
    if (std::optional<std::string> narrative = source.read(narrativeFile, lesson_limits::kMaxNarrativeBytes, sink))
        scenario.narrative = std::move(*narrative);
    checkScenarioViews(scenario, lines, metaFile, sink);
    checkNarrativeLinks(scenario, narrativeFile, sink);
    return scenario;
}

}  // namespace ampscope
