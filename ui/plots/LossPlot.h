#pragma once
// LossPlot: training loss per step (raw, and an exponential moving average), validation
// loss and accuracy per epoch, and marks for steps whose optimizer step was skipped
// (bottom rug, orange) and for non-finite losses (top rug, red).
//
// Contract:
// - Left axis: loss (linear by default; setLogarithmic(true) or the context menu switch to
//   log10, which suits losses spanning decades). Right axis: validation accuracy in %,
//   shown once a run reports an accuracy (regression sets have none).
// - The smoothed curve is a debiased EMA (as TensorBoard's) over the finite losses, so
//   it starts at the first loss instead of rising from zero.
// - Marks sit on a hidden [0, 1] axis so they stay on the plot's edges whatever the zoom.
// - Earlier runs (a scenario's runs before the one training, or all of them once it
//   ended) are drawn under this run's loss, one coloured line each, labelled by run
//   name; this run's lines are then labelled by its name too. beginRun drops them.
#include <vector>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class LossPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    static constexpr double kSmoothing = 0.95;

    explicit LossPlot(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;
    void appendEpoch(const EpochMetrics& epoch) override;

    void addEarlierRun(const QString& name, const DecimatedSeries& losses);
    int earlierRunCount() const { return static_cast<int>(earlierRuns_.size()); }
    QCPGraph* earlierRunGraph(int index) const;

    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return logarithmic_; }
    QAction* logarithmicAction() const { return logAction_; }

    QString hoverText(double step, QPoint pixel) const override;

    QCPGraph* rawLossGraph() const { return raw_->graph(); }
    QCPGraph* smoothedLossGraph() const { return smoothed_->graph(); }
    QCPGraph* validationLossGraph() const { return valLoss_->graph(); }
    QCPGraph* validationAccuracyGraph() const { return valAccuracy_->graph(); }
    QCPGraph* skippedStepGraph() const { return skipped_->graph(); }
    const DecimatedSeries& rawLoss() const { return raw_->series(); }

protected:
    void applyAutoRanges() override;
    void addContextActions(QMenu& menu) override;

private:
    void showInLegend(SeriesGraph* series);

    SeriesGraph* raw_;
    SeriesGraph* smoothed_;
    SeriesGraph* valLoss_;
    SeriesGraph* valAccuracy_;
    SeriesGraph* skipped_;
    SeriesGraph* nonFinite_;
    QCPAxis* markerAxis_;
    QAction* logAction_;
    bool logarithmic_ = false;
    double ema_ = 0.0;
    double emaWeight_ = 0.0;  // 1 - kSmoothing^n: the debiasing divisor
    std::vector<EpochMetrics> epochs_;
    std::vector<SeriesGraph*> earlierRuns_;
    QString runTitle_;
};

}  // namespace ampscope::ui
