#pragma once
// ThroughputPlot: training speed per step of the runs a run set shows: samples per second
// (left axis, solid) and the wall time of each step in milliseconds (right axis, dashed),
// both raw (a slow step is a fact worth seeing: evaluation, the first step's allocations,
// another process on the cores), each run in its colour, the legend by run name once
// several are shown. A job's ranks (or many seeds) as their bands: samples/s filled, step
// time as dashed edges, the stragglers and other outliers as their own named lines.
#include <vector>

#include "views/RunSetTimePlot.h"

namespace ampscope::ui {

class ThroughputPlot : public RunSetTimePlot {
    Q_OBJECT
public:
    explicit ThroughputPlot(RunSet* set, QWidget* parent = nullptr);

    QString hoverText(double step, QPoint pixel) const override;

    // The focused run's graphs (nullptr with no run shown).
    QCPGraph* samplesPerSecondGraph() const { return rates_.empty() ? nullptr : rates_.front()->graph(); }
    QCPGraph* stepTimeGraph() const { return times_.empty() ? nullptr : times_.front()->graph(); }

protected:
    void addRunGraphs(const RunModel& run, bool focused, bool several) override;
    void afterRebuild() override;
    QString emptyText() const override;
    void applyAutoRanges() override;
    std::vector<BandQuantity> bandQuantities() const override;

private:
    std::vector<SeriesGraph*> rates_, times_;  // per shown run, the focused one first
};

}  // namespace ampscope::ui
