#pragma once
// SeedBandGraphs: one seed group's band on a per-step plot (core/stats/SeedBand.h): per
// step, the centre (the mean of the seeds' smoothed training loss) as a line, and the
// band's edges (mean +- t s sqrt(1 + 1/N)) as an area filled between them, in the group's
// colour at low alpha, so the seeds' own lines stay readable on top.
//
// Contract:
// - The three graphs are the plot's own series (SeriesGraph::append): the band is derived
//   from the runs' stores, so it is drawing data the plot may keep; refill() derives it
//   again from the runs' smoothed loss, and is called whenever one of them changed.
// - The high edge's graph carries the fill and the legend entry; the low edge and the
//   centre stay out of the legend.
// - A positive centre's low edge is drawn no lower than kLowestDrawnShare of the centre:
//   with few seeds and a wide spread the band's low edge goes below zero, which a
//   logarithmic loss axis cannot draw (the area would break into pieces); three decades
//   below the centre is the bottom of any loss plot that still shows the centre.
// - The seeds are matched by step (stats::seedBandSeries): a step where fewer than two
//   seeds have a smoothed loss kept (a long run's series is thinned, DecimatedSeries.h)
//   has no band point.
#include <QString>
#include <vector>

#include "plots/SeriesGraph.h"

namespace ampscope::ui {

class DecimatedSeries;

class SeedBandGraphs {
public:
    static constexpr double kLowestDrawnShare = 1e-3;

    // The seeds' smoothed losses: the runs' own series, which outlive the plot's graphs.
    // Which runs they are is the caller's to know (a plot draws what it is handed).
    SeedBandGraphs(SeriesGraph* low, SeriesGraph* high, SeriesGraph* centre,
                   std::vector<const DecimatedSeries*> seeds);

    // "<name>: seed band of N seeds (95% prediction interval)".
    static QString legendName(const QString& groupName, int seeds);
    void refill();

    int seedCount() const { return static_cast<int>(seeds_.size()); }
    SeriesGraph* low() const { return low_; }
    SeriesGraph* high() const { return high_; }
    SeriesGraph* centre() const { return centre_; }

private:
    SeriesGraph* low_;
    SeriesGraph* high_;
    SeriesGraph* centre_;
    std::vector<const DecimatedSeries*> seeds_;
};

}  // namespace ampscope::ui
