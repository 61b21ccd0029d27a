#pragma once
// A band member's points as every band of many runs is taken (the plots' bands, the loss
// departure and straggler rules): its bucket firsts (DecimatedSeries::bucketFirsts), its
// value at the same steps in every member (all of them while a member is short), never the
// extremes a thinned member keeps beside them at steps of its own. A band taken where many
// members happened to keep an extreme would be a band of those members' extremes.
#include <vector>

#include "runset/DecimatedSeries.h"
#include "stats/ManyRuns.h"

namespace ampscope::ui {

struct BandMemberPoints {
    std::vector<double> steps, values;
    explicit BandMemberPoints(const DecimatedSeries& s) { s.bucketFirsts(steps, values); }
    // A view of the points: valid while this object lives and is not moved.
    stats::MemberSeries series() const { return {steps.data(), values.data(), steps.size()}; }
};

}  // namespace ampscope::ui
