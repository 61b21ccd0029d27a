#pragma once
// SeedBandLabels: how each shown run stands against the reference seed band, as the Runs
// list writes it beneath the run's name and the status bar for the focused run. The rule
// is core's (stats/BandVerdicts.h), the same a scenario's comparison.txt and a report's
// first page print: the reference is the shown fp32 seeds, else the first shown seeds (in
// the set's order); final validation loss and accuracy each inside/outside with the test's
// p-value (Welch one-sided for another config's seeds, the band itself for a lone run).
//
// Contract:
// - No label while the band has fewer than two seeds with a finite final validation loss,
//   or the run (or its group) has none; none for the band's own seeds. The accuracy part is
//   left out where either side has no accuracy (regression).
// - The row's label is short, a line per quantity (a row of the Runs list is narrow); the
//   status bar's names the band; the tool tip names the band's
//   config, its seeds, the band's rule, the test, and where along the run its smoothed loss
//   left the band.
// Derived from the set at each call; nothing is kept.
#include <QString>
#include <map>

#include "runset/RunChanges.h"

namespace ampscope::ui {

class RunSet;

struct SeedBandLabel {
    // The row's lines (narrow: one quantity a line): "val loss outside (p = 0.0012)\naccuracy inside (p = 0.2)".
    QString text;
    // One line for the status bar, with the band's name: "seed band of mlp-fp32: val loss outside (p = 0.0012),
    // accuracy inside (p = 0.2)".
    QString statusText;
    QString toolTip;  // which band, and its rule
    bool operator==(const SeedBandLabel& other) const = default;
};

std::map<RunId, SeedBandLabel> seedBandLabels(const RunSet& set);

}  // namespace ampscope::ui
