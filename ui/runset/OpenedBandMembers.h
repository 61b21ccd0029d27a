#pragma once
// Which of the runs opened together will be drawn as members of a band of many runs (the
// rule is core's, stats::manyRunGroups, the one the plots draw bands by: a job's ranks, or
// 8 or more seeds of one config), decided before their records are read, so that their
// stores are made thin from the first step (RunContext::bandMember, StepSeries). A run
// that later joins a band opened another way keeps what a single run keeps: more points
// than the band needs, never fewer.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stats/ManyRuns.h"

namespace ampscope::ui {

// One flag per directory given, in order. A rank is grouped by its job folder, so its
// config is not asked for; any other run by its config: configOf(i) gives it, or nullopt
// for a directory that is not a run (in no band). opened(i) false: a run not opened
// (in no band, and not counted among its job's ranks).
inline std::vector<bool> openedBandMembers(const std::vector<std::string>& directories,
                                           const std::function<std::optional<nlohmann::json>(std::size_t)>& configOf,
                                           const std::function<bool(std::size_t)>& opened = {}) {
    std::vector<stats::RunIdentity> identities;
    std::vector<std::size_t> runs;  // the directory of each identity
    for (std::size_t i = 0; i < directories.size(); ++i) {
        if (opened && !opened(i)) continue;
        if (stats::jobOfDirectory(directories[i]).empty()) {
            std::optional<nlohmann::json> config = configOf(i);
            if (!config) continue;
            identities.push_back({directories[i], std::move(*config)});
        } else {
            identities.push_back({directories[i], nlohmann::json()});
        }
        runs.push_back(i);
    }
    std::vector<bool> member(directories.size(), false);
    for (const stats::ManyRunGroup& group : stats::manyRunGroups(identities))
        for (const std::size_t k : group.members) member[runs[k]] = true;
    return member;
}

}  // namespace ampscope::ui
