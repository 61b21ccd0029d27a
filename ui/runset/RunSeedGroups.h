#pragma once
// RunSeedGroups: the shown runs of a run set that are seeds of one config (the rule is
// core's, stats::seedGroups over the runs' config documents), as the Loss view draws them
// (one seed band per group) and the Runs list labels the other runs against the first.
//
// Contract:
// - shownSeedGroups(set): the groups among RunSet::shownRuns(), each group's runs and the
//   groups in the set's list order (not focus order: the first group stays the first
//   while the focus moves). Derived each call from the set; nothing is kept. Runs drawn
//   as a band of many (RunBands.h: a job's ranks, 8 or more seeds) are in no seed group.
// - A group's name is core's rule, stats::seedGroupName: its first run's config name (else
//   its title) without the seed a seed run's name ends with.
#include <QString>
#include <vector>

#include "runset/RunChanges.h"

namespace ampscope::ui {

class RunModel;
class RunSet;

struct RunSeedGroup {
    std::vector<const RunModel*> runs;
    QString name;

    bool contains(RunId id) const;
    std::vector<RunId> ids() const;
};

std::vector<RunSeedGroup> shownSeedGroups(const RunSet& set);
QString seedGroupName(const RunModel& firstRun);

}  // namespace ampscope::ui
