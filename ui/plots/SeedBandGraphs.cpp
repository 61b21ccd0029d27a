#include "plots/SeedBandGraphs.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

#include "stats/SeedBand.h"

namespace ampscope::ui {

SeedBandGraphs::SeedBandGraphs(SeriesGraph* low, SeriesGraph* high, SeriesGraph* centre,
                               std::vector<const DecimatedSeries*> seeds)
    : low_(low), high_(high), centre_(centre), seeds_(std::move(seeds)) {
    high_->graph()->setChannelFillGraph(low_->graph());
    low_->graph()->removeFromLegend();
    centre_->graph()->removeFromLegend();
}

QString SeedBandGraphs::legendName(const QString& groupName, int seeds) {
    return QCoreApplication::translate("SeedBandGraphs", "%1: seed band of %2 seeds (95% prediction interval)")
        .arg(groupName)
        .arg(seeds);
}

void SeedBandGraphs::refill() {
    std::vector<std::vector<stats::StepValue>> seedRuns;
    seedRuns.reserve(seeds_.size());
    for (const DecimatedSeries* series : seeds_) {
        std::vector<stats::StepValue> values;
        values.reserve(series->size());
        for (std::size_t i = 0; i < series->size(); ++i)
            values.push_back({static_cast<int64_t>(std::llround(series->x(i))), series->y(i)});
        seedRuns.push_back(std::move(values));
    }
    low_->clear();
    high_->clear();
    centre_->clear();
    for (const stats::StepBand& point : stats::seedBandSeries(seedRuns)) {
        const double step = static_cast<double>(point.step);
        const double floor = point.band.centre > 0.0 ? point.band.centre * kLowestDrawnShare : point.band.low;
        low_->append(step, std::max(point.band.low, floor));
        high_->append(step, point.band.high);
        centre_->append(step, point.band.centre);
    }
}

}  // namespace ampscope::ui
