#pragma once
// SeedBandLabels: how each shown run that is not a seed of the first seed group
// (RunSeedGroups.h) stands against that group's band of final validation losses, as the
// Runs list writes it beneath the run's name.
//
// Contract:
// - A run of no group: stats::labelRunAgainstBand of its final validation loss (two-sided
//   prediction-interval test: "inside" exactly when the value lies inside the band).
// - A run of another group: that group's final validation losses against the band's,
//   stats::labelSeedsAgainstBand, one-sided Greater (the question asked before looking:
//   is the other config's loss higher than seed noise explains?); each of its runs shows
//   the group's label.
// - No label while the band has fewer than two seeds with a finite final validation loss,
//   or the run (or its group) has none; none for the band's own seeds.
// - The label is short (a row of the Runs list is narrow); its tool tip names the band's
//   config, its seeds and the band's rule.
// Derived from the set at each call; nothing is kept.
#include <QString>
#include <map>

#include "runset/RunChanges.h"

namespace ampscope::ui {

class RunSet;

struct SeedBandLabel {
    QString text;     // "val loss outside the seed band (p = 0.0012)"
    QString toolTip;  // which band, and its rule
    bool operator==(const SeedBandLabel& other) const = default;
};

std::map<RunId, SeedBandLabel> seedBandLabels(const RunSet& set);

}  // namespace ampscope::ui
