#include "plots/QuantileBandGraphs.h"

#include "runset/DecimatedSeries.h"
#include "stats/ManyRuns.h"

namespace ampscope::ui {

QuantileBandGraphs::QuantileBandGraphs(SeriesGraph* low, SeriesGraph* high, SeriesGraph* median,
                                       std::vector<const DecimatedSeries*> members, bool filled)
    : low_(low), high_(high), median_(median), members_(std::move(members)) {
    if (filled) high_->graph()->setChannelFillGraph(low_->graph());
    low_->graph()->removeFromLegend();
    high_->graph()->removeFromLegend();
}

void QuantileBandGraphs::refill() {
    // Each member's bucket firsts (DecimatedSeries::bucketFirsts), not every point it keeps:
    // those are its value at the same steps in every member (all of them while a member is
    // short), where the extremes a thinned member keeps beside them lie at steps of its own.
    // A band taken where many members happened to keep an extreme would be a band of those
    // members' extremes; sampled at the bucket firsts it is every member's value, per step.
    std::vector<std::vector<double>> steps(members_.size()), values(members_.size());
    std::vector<stats::MemberSeries> members;
    members.reserve(members_.size());
    for (std::size_t m = 0; m < members_.size(); ++m) {
        members_[m]->bucketFirsts(steps[m], values[m]);
        members.push_back({steps[m].data(), values[m].data(), steps[m].size()});
    }
    low_->clear();
    high_->clear();
    median_->clear();
    for (const stats::QuantileBandPoint& point : stats::quantileBandSeries(members)) {
        const double step = static_cast<double>(point.step);
        low_->append(step, point.low);
        high_->append(step, point.high);
        median_->append(step, point.median);
    }
}

}  // namespace ampscope::ui
