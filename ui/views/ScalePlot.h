#pragma once
// ScalePlot: the loss-scale history of the runs a run set shows.
//
// Contract:
// - Left axis: log2 of the scale each step's loss was multiplied by, drawn as a step line
//   (the scale holds until the next update), one per shown run in its colour (legend by
//   run name once several are shown). Right axis: the focused run's growth tracker after
//   each step, a sawtooth climbing toward growth_interval and dropping to 0 on every
//   change (when that run has a dynamic scaler).
// - The focused run's backoffs are red marks at the scale that overflowed; hovering one
//   names the step, the scale before and after, and the layer whose gradient went
//   non-finite first. Growths are green marks.
// - When no shown run has a dynamic scaler the plot says so instead of showing a flat
//   line without explanation.
// - A job's ranks (or many seeds) as the band of their log2 scales (median, 10-90%), the
//   outliers (first non-finite, stragglers, departing loss) as their own named lines.
#include <vector>

#include "views/RunSetTimePlot.h"
#include "runset/StepSeries.h"

namespace ampscope::ui {

class ScalePlot : public RunSetTimePlot {
    Q_OBJECT
public:
    explicit ScalePlot(RunSet* set, QWidget* parent = nullptr);

    QString hoverText(double step, QPoint pixel) const override;

    // The focused run's graphs (nullptr with no run shown).
    QCPGraph* scaleGraph() const { return log2Scales_.empty() ? nullptr : log2Scales_.front()->graph(); }
    QCPGraph* trackerGraph() const { return tracker_ ? tracker_->graph() : nullptr; }
    QCPGraph* backoffGraph() const { return backoffMarks_ ? backoffMarks_->graph() : nullptr; }
    // The scale line of the index-th shown run (0: the focused one).
    QCPGraph* runGraph(int index) const;

protected:
    void addRunGraphs(const RunModel& run, bool focused, bool several) override;
    void afterRebuild() override;
    QString emptyText() const override;
    void applyAutoRanges() override;
    std::vector<BandQuantity> bandQuantities() const override;

private:
    static const ScaleEvent* nearestChange(const std::vector<ScaleEvent>& changes, double step);
    QString changeText(const ScaleEvent& change, bool backoff) const;

    std::vector<SeriesGraph*> log2Scales_;  // per shown run, the focused one first
    SeriesGraph* tracker_ = nullptr;
    SeriesGraph* backoffMarks_ = nullptr;
    SeriesGraph* growthMarks_ = nullptr;
};

}  // namespace ampscope::ui
