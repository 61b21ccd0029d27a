#pragma once
// LockstepPlot: the lock-step A/B of the focused run (config lockstep.mode): the same
// seed, initial weights and batches trained in a second precision mode B beside the run
// A, from its "lockstep" records (LockstepSeries):
// - left axis: per layer, the cosine between A's and B's unscaled parameter gradients
//   of the same step (probe steps), one line per layer;
// - right axis: the loss difference A - B per step.
// A run without lock-step records shows how to get them. Otherwise a TimeSeriesPlot
// (zoom/pan, double click resets, tooltip with exact values, Save image…).
#include <map>
#include <string>

#include "views/RunSetTimePlot.h"

namespace ampscope::ui {

class LockstepPlot : public RunSetTimePlot {
    Q_OBJECT
public:
    explicit LockstepPlot(RunSet* set, QWidget* parent = nullptr);

    QString hoverText(double step, QPoint pixel) const override;

    QCPGraph* lossDiffGraph() const { return lossDiff_ ? lossDiff_->graph() : nullptr; }
    // nullptr until a record carries that layer's cosine.
    QCPGraph* cosineGraph(const std::string& layer) const;
    QString partnerMode() const;

protected:
    void addRunGraphs(const RunModel& run, bool focused, bool several) override;
    void afterRebuild() override;
    QString emptyText() const override;
    void applyAutoRanges() override;

private:
    void addNewLayers();

    const RunModel* run_ = nullptr;  // the focused run (lock-step is within one run)
    SeriesGraph* lossDiff_ = nullptr;
    std::map<std::string, SeriesGraph*> cosines_;
};

}  // namespace ampscope::ui
