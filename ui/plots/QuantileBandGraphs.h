#pragma once
// QuantileBandGraphs: many runs of one config as one band on a per-step plot
// (core/stats/ManyRuns.h): per step, the members' median as a line and, filled between
// two edge lines, the 10% to 90% quantiles of the members that have that step, in the
// band's colour at low alpha, so the outliers drawn on top stay readable.
//
// Contract:
// - The three graphs are the plot's own series (SeriesGraph::append): the band is derived
//   from the members' series, which the caller hands over (a plot draws what it is
//   handed) and which outlive the graphs; refill() derives it again.
// - The median's graph carries the legend entry (its name is the caller's); the edges
//   stay out of the legend, the high edge carries the fill down to the low edge.
// - The band is taken over each member's bucket firsts (DecimatedSeries::bucketFirsts:
//   every point of a short member, a thinned one's value every pointsPerBucket() steps),
//   never over the extremes a thinned member keeps at steps of its own.
// - refill() costs one pass over every member's bucket firsts and a selection of the
//   values at each step: about 0.1 s for 512 members of 10^4 points, so the caller
//   coalesces refills, never one per record.
#include <vector>

#include "plots/SeriesGraph.h"

namespace ampscope::ui {

class DecimatedSeries;

class QuantileBandGraphs {
public:
    QuantileBandGraphs(SeriesGraph* low, SeriesGraph* high, SeriesGraph* median,
                       std::vector<const DecimatedSeries*> members, bool filled);

    void refill();

    int memberCount() const { return static_cast<int>(members_.size()); }
    SeriesGraph* low() const { return low_; }
    SeriesGraph* high() const { return high_; }
    SeriesGraph* median() const { return median_; }

private:
    SeriesGraph* low_;
    SeriesGraph* high_;
    SeriesGraph* median_;
    std::vector<const DecimatedSeries*> members_;
};

}  // namespace ampscope::ui
