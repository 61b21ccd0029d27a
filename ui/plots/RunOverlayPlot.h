#pragma once
// RunOverlayPlot: one quantity of several recorded runs over their steps, a line per
// run with a legend by run name and mode (the Compare dock's loss, loss-scale and
// underflow plots). Not a live view: the Compare dock hands it whole runs.
// Otherwise a TimeSeriesPlot (zoom/pan, double click resets, tooltip, Save image…).
#include <QString>
#include <vector>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class RunOverlayPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    RunOverlayPlot(const QString& yLabel, const QString& emptyText, QWidget* parent = nullptr);

    void clearRuns();
    // One line; points whose y is not finite are left out.
    void addRun(const QString& legend, const std::vector<double>& steps,
                const std::vector<double>& values);
    int runCount() const { return static_cast<int>(legends_.size()); }
    QCPGraph* runGraph(int index) const { return runs_.at(static_cast<size_t>(index))->graph(); }

    // RunObserver: unused (the Compare dock feeds whole runs).
    void beginRun(const RunContext& context) override { (void)context; }
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }

    QString hoverText(double step, QPoint pixel) const override;

protected:
    void applyAutoRanges() override;

private:
    QString emptyText_;
    std::vector<SeriesGraph*> runs_;
    std::vector<QString> legends_;
    double lastStep_ = 0.0, low_ = 0.0, high_ = 0.0;
    bool any_ = false;
};

}  // namespace ampscope::ui
