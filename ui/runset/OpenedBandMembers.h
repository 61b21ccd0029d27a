#pragma once
// Which of the runs opened together will be drawn as members of a band of many runs (the
// rule is core's, stats::manyRunGroups, the one the plots draw bands by: a job's ranks, or
// 8 or more seeds of one config), decided before their records are read, so that their
// stores are made thin from the first step (RunContext::bandMember, StepSeries). A run
// that later joins a band opened another way keeps what a single run keeps: more points
// than the band needs, never fewer.
#include <vector>

#include "stats/ManyRuns.h"

namespace ampscope::ui {

// One flag per run given, in order.
inline std::vector<bool> openedBandMembers(const std::vector<stats::RunIdentity>& runs) {
    std::vector<bool> member(runs.size(), false);
    for (const stats::ManyRunGroup& group : stats::manyRunGroups(runs))
        for (const std::size_t i : group.members) member[i] = true;
    return member;
}

}  // namespace ampscope::ui
