#pragma once
// ScalePlot: the loss-scale history of a run.
//
// Contract:
// - Left axis: log2 of the scale each step's loss was multiplied by, drawn as a step line
//   (the scale holds until the next update). Right axis: the growth tracker after each
//   step, a sawtooth climbing toward growth_interval and dropping to 0 on every change.
// - Each backoff is a red mark at the scale that overflowed; hovering it names the step,
//   the scale before and after, and the layer whose gradient went non-finite first.
//   Growths are green marks.
// - A run without a dynamic scaler says so in the plot instead of showing a flat line
//   without explanation.
#include <vector>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class ScalePlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    struct ScaleChange {
        int64_t step = 0;
        double scale = 1.0;       // the scale the step ran with
        double scaleAfter = 1.0;  // after update()
        std::string layer;        // backoffs: first non-finite layer ("" if unknown)
    };

    // backoffs() and growths() list the first this many of each (a run whose gradients
    // stay non-finite backs off on every step: 10^6 of them); the marks show them all.
    static constexpr std::size_t kMaxListedChanges = 10000;

    explicit ScalePlot(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;

    QString hoverText(double step, QPoint pixel) const override;

    const std::vector<ScaleChange>& backoffs() const { return backoffs_; }
    const std::vector<ScaleChange>& growths() const { return growths_; }
    QCPGraph* scaleGraph() const { return log2Scale_->graph(); }
    QCPGraph* trackerGraph() const { return tracker_->graph(); }
    QCPGraph* backoffGraph() const { return backoffMarks_->graph(); }

protected:
    void applyAutoRanges() override;

private:
    static const ScaleChange* nearestChange(const std::vector<ScaleChange>& changes, double step);
    QString changeText(const ScaleChange& change, bool backoff) const;

    SeriesGraph* log2Scale_;
    SeriesGraph* tracker_;
    SeriesGraph* backoffMarks_;
    SeriesGraph* growthMarks_;
    std::vector<ScaleChange> backoffs_;
    std::vector<ScaleChange> growths_;
    // Steps whose optimizer step was skipped, for the tooltip (not drawn; bounded).
    DecimatedSeries skippedSteps_;
    std::string scalerKind_ = "off";
    int64_t growthInterval_ = 2000;
};

}  // namespace ampscope::ui
