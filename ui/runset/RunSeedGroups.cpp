#include "runset/RunSeedGroups.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "config/ConfigJson.h"
#include "runset/RunBands.h"
#include "runset/RunSet.h"
#include "stats/SeedGroups.h"

namespace ampscope::ui {

bool RunSeedGroup::contains(RunId id) const {
    return std::any_of(runs.begin(), runs.end(), [id](const RunModel* run) { return run->id() == id; });
}

std::vector<RunId> RunSeedGroup::ids() const {
    std::vector<RunId> out;
    for (const RunModel* run : runs) out.push_back(run->id());
    return out;
}

std::vector<RunSeedGroup> shownSeedGroups(const RunSet& set) {
    // Runs drawn as a band of many (a job's ranks, 8 or more seeds) are no seed band's.
    const std::vector<RunBand> many = shownBandMembers(set);
    std::vector<const RunModel*> shown;
    for (const RunModel* run : set.runs())
        if (set.isShown(run->id()) &&
            std::none_of(many.begin(), many.end(), [run](const RunBand& b) { return b.contains(run->id()); }))
            shown.push_back(run);
    std::vector<nlohmann::json> configs;
    configs.reserve(shown.size());
    for (const RunModel* run : shown) configs.push_back(configToJson(run->config()));
    std::vector<RunSeedGroup> groups;
    for (const std::vector<std::size_t>& indices : stats::seedGroups(configs)) {
        RunSeedGroup group;
        for (const std::size_t i : indices) group.runs.push_back(shown[i]);
        group.name = seedGroupName(*group.runs.front());
        groups.push_back(std::move(group));
    }
    return groups;
}

QString seedGroupName(const RunModel& firstRun) {
    return QString::fromStdString(stats::seedGroupName(firstRun.config().name, firstRun.name().toStdString()));
}

}  // namespace ampscope::ui
