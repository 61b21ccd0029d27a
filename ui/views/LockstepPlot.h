#pragma once
// LockstepPlot: the lock-step A/B of a run (config lockstep.mode): the same seed,
// initial weights and batches trained in a second precision mode B beside the run A.
// From "lockstep" records (core/probes/ComparisonRecords.h):
// - left axis: per layer, the cosine between A's and B's unscaled parameter gradients
//   of the same step (probe steps), one line per layer;
// - right axis: the loss difference A - B per step.
// A run without lock-step records shows how to get them. Otherwise a TimeSeriesPlot
// (zoom/pan, double click resets, tooltip with exact values, Save image…).
#include <map>
#include <string>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class LockstepPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    explicit LockstepPlot(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void takeRecord(const nlohmann::json& record) override;

    QString hoverText(double step, QPoint pixel) const override;

    QCPGraph* lossDiffGraph() const { return lossDiff_->graph(); }
    // nullptr until a record carries that layer's cosine.
    QCPGraph* cosineGraph(const std::string& layer) const;
    QString partnerMode() const { return partnerMode_; }

protected:
    void applyAutoRanges() override;

private:
    void addLossSeries();

    SeriesGraph* lossDiff_ = nullptr;
    std::map<std::string, SeriesGraph*> cosines_;
    std::vector<std::string> layerOrder_;  // first-seen order, for colours and the tooltip
    QString runMode_, partnerMode_;
    double lastStep_ = 0.0;
    double minCosine_ = 1.0;
    double maxAbsDiff_ = 0.0;
};

}  // namespace ampscope::ui
