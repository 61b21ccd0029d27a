#include "scenarios/ScenarioSeeds.h"

#include <algorithm>
#include <cmath>

#include "config/ConfigText.h"
#include "run/RunNaming.h"
#include "scenarios/LessonLimits.h"
#include "stats/SeedBand.h"

namespace ampscope {

namespace {

using nlohmann::json;

// Seed K of `run`, config and config text alike.
ScenarioRun seedRunOf(const ScenarioRun& run, int k) {
    ScenarioRun seeded;
    seeded.name = seedRunFolder(run.name + "-", k);
    seeded.config = seedRunConfig(run.config, runName(run.config), k);
    json document = json::parse(run.configText, nullptr, false);
    if (document.is_object()) {
        document["seed"] = seeded.config.seed;
        document["name"] = seeded.config.name;
        seeded.configText = document.dump(2);
    }
    return seeded;
}

}  // namespace

void expandScenarioSeeds(const json& meta, Scenario& scenario, const JsonLineIndex& lines, const std::string& file,
                         ProblemSink& sink) {
    const auto seeds = meta.find("seeds");
    if (seeds == meta.end()) return;
    if (!seeds->is_object()) {
        sink.add(file, lines.lineOf("seeds"),
                 "seeds must be an object {\"RUN\": N, ...} (got " + config_text::describe(*seeds) + ")");
        return;
    }
    std::vector<std::pair<std::string, int>> wanted;
    std::size_t total = scenario.runs.size();
    for (const auto& [name, value] : seeds->items()) {
        const std::string path = JsonLineIndex::child("seeds", name);
        const bool known = std::any_of(scenario.runs.begin(), scenario.runs.end(),
                                       [&](const ScenarioRun& run) { return run.name == name; });
        if (!known) {
            sink.add(file, lines.lineOf(path), path + ": " + config_text::quoted(name) + " is not a run of \"runs\"");
            continue;
        }
        const bool whole = value.is_number_integer() || (value.is_number_float() && std::trunc(value.get<double>()) ==
                                                                                          value.get<double>());
        const double count = value.is_number() ? value.get<double>() : 0.0;
        if (!whole || count < stats::kMinimumSeeds || count > static_cast<double>(lesson_limits::kMaxSeedsPerRun)) {
            sink.add(file, lines.lineOf(path),
                     path + " must be a whole number of seeds from " + std::to_string(stats::kMinimumSeeds) + " to " +
                         std::to_string(lesson_limits::kMaxSeedsPerRun) + " (got " + config_text::describe(value) +
                         ")");
            continue;
        }
        wanted.emplace_back(name, static_cast<int>(count));
        total += static_cast<std::size_t>(count) - 1;
    }
    if (total > lesson_limits::kMaxRuns) {
        sink.add(file, lines.lineOf("seeds"),
                 "seeds: " + std::to_string(total) + " runs in all, more than " +
                     std::to_string(lesson_limits::kMaxRuns) + " (a lesson compares a few runs, not a sweep)");
        return;
    }
    for (const auto& [name, count] : wanted) {
        const auto at = std::find_if(scenario.runs.begin(), scenario.runs.end(),
                                     [&](const ScenarioRun& run) { return run.name == name; });
        std::vector<ScenarioRun> expanded;
        for (int k = 1; k <= count; ++k) expanded.push_back(seedRunOf(*at, k));
        const auto position = scenario.runs.erase(at);
        scenario.runs.insert(position, expanded.begin(), expanded.end());
        for (ScenarioView& view : scenario.views)
            if (view.run == name) view.run = expanded.front().name;
    }
}

}  // namespace ampscope
