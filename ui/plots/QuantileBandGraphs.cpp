#include "plots/QuantileBandGraphs.h"

#include "runset/BandMemberPoints.h"
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
    std::vector<BandMemberPoints> points;  // reserved: the views below stay valid
    points.reserve(members_.size());
    std::vector<stats::MemberSeries> members;
    members.reserve(members_.size());
    for (const DecimatedSeries* member : members_) members.push_back(points.emplace_back(*member).series());
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
