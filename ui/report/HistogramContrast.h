#pragma once
// Which gradient histograms differ most between the runs of a report: its side-by-side
// pages show those (same layer and kind in every run, one colour scale, one log2|g| axis).
//
// Contract:
// - histogramTotals(series): a run's histograms added up over the probe steps its
//   HistogramSeries keeps (every step of a run of up to kMaxKeptProbeSteps probe steps,
//   the thinning rule's choice beyond), per kind and layer.
// - rankContrasts(runs): every kind and layer that at least two runs recorded, with the
//   largest exponentDistance (probes/ExponentDistance.h: binades on the log2|g| axis)
//   between two of them and which two, largest first; ties in the kind order of
//   probe_kind (unscaled, scaled, activation) and then layer name. Pairs a distance
//   cannot be measured for (no mass on the axis) are left out.
#include <QString>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "probes/ExponentHistogram.h"

namespace ampscope::ui {

class HistogramSeries;

// Keyed by (kind, layer), as the records name them.
using HistogramTotals = std::map<std::pair<std::string, std::string>, ExponentHistogram>;

HistogramTotals histogramTotals(const HistogramSeries& series);

struct HistogramContrast {
    QString kind;  // probe_kind's name
    QString layer;
    double binades = 0.0;
    int runA = 0, runB = 0;  // indexes into the runs given, runA < runB
};

std::vector<HistogramContrast> rankContrasts(const std::vector<HistogramTotals>& runs);

}  // namespace ampscope::ui
