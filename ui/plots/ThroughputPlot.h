#pragma once
// ThroughputPlot: training speed per step: samples per second (left axis) and the wall
// time of each step in milliseconds (right axis), both raw: a slow step is a fact worth
// seeing (evaluation, the first step's allocations, another process on the cores).
#include <vector>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class ThroughputPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    explicit ThroughputPlot(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;

    QString hoverText(double step, QPoint pixel) const override;

    QCPGraph* samplesPerSecondGraph() const { return samplesPerSecond_->graph(); }
    QCPGraph* stepTimeGraph() const { return stepMilliseconds_->graph(); }

protected:
    void applyAutoRanges() override;

private:
    SeriesGraph* samplesPerSecond_;
    SeriesGraph* stepMilliseconds_;
};

}  // namespace ampscope::ui
