#pragma once
// RunBands: the shown runs of a run set that are many runs of one config (the rule is
// core's, stats::manyRunGroups: a job's ranks, or 8 or more seeds of one config), as the
// per-step plots draw them (one band, QuantileBandGraphs) and name their outliers.
//
// Contract:
// - shownRunBands(set): the groups among RunSet::shownRuns(), in the set's list order,
//   members in list order. Derived each call from the set's stores; nothing is kept.
//   shownBandMembers(set) is the cheap half: who is in a band, without the outliers.
// - runBandsOf(set, runs): the same groups and outliers among the runs given, in that
//   order, shown or not (a report decides which runs get pages of their own before it
//   shows any).
// - A band's name: a job's folder name ("job"), a seed group's name (seedGroupName).
// - Its outliers (ManyRuns.h's rules), each named once with every reason it has, in this
//   order: the member that went non-finite first (RunSet::firstNonFinite, at its step),
//   stragglers in step time (slowest first), members whose smoothed loss departs from the
//   band of the members' smoothed losses. At most kNamedOutliers are named and drawn;
//   moreOutliers counts the rest (the Runs list still lists every member).
#include <QString>
#include <vector>

#include "runset/RunChanges.h"
#include "stats/ManyRuns.h"

namespace ampscope::ui {

class RunModel;
class RunSet;

struct BandOutlier {
    const RunModel* run = nullptr;
    QString why;  // "first non-finite at step 1000; straggler: 2.1x the typical step time"
};

struct RunBand {
    static constexpr int kNamedOutliers = 6;

    stats::ManyRunKind kind = stats::ManyRunKind::JobRanks;
    QString name;
    std::vector<const RunModel*> members;
    std::vector<BandOutlier> outliers;
    int moreOutliers = 0;

    bool contains(RunId id) const;
    const BandOutlier* outlier(RunId id) const;
    // "ranks" or "seeds".
    QString memberNoun() const;
    bool sameDrawing(const RunBand& other) const;  // the same members and outliers, named alike
};

std::vector<RunBand> shownBandMembers(const RunSet& set);
std::vector<RunBand> shownRunBands(const RunSet& set);
std::vector<RunBand> runBandsOf(const RunSet& set, const std::vector<RunId>& runs);
// A member's typical step time as the straggler rule measures it: the median of its step
// times at its bucket firsts (the steps every member keeps); NaN when it has none. A
// report's account of a band's other members quotes the same measure.
double typicalStepMilliseconds(const RunModel& run);

}  // namespace ampscope::ui
