#pragma once
// ScalingView: the "Scaling" dock. For one rounding point (layer x operand x direction,
// a chooser), over the probe steps: the tensor's own amax, the amax its scale came from
// (delayed scaling: the history's max or most recent; with current scaling the two
// coincide), the scale, and the overflow steps (saturated > 0) marked.
//
// Contract:
// - A RunObserver: "format_quant" records (written by runs in fp8, mxfp8, mxfp4, nvfp4),
//   kept in a FormatQuantHistory; run_info orders the points.
// - The plot (ScalingPlot) holds one point per kept probe step of the chosen point:
//   amax, scale_amax, scale; an overflow mark exactly at the steps with saturated > 0.
//   MX points have no tensor scale (scale is NaN): only amax and the marks are drawn.
// - The note under the chooser gives the recipe, the format and the latest lag
//   (amax / scale_amax) and how many overflow steps the kept steps hold.
#include <QWidget>

#include "RunObserver.h"
#include "views/FormatQuantHistory.h"

class QComboBox;
class QLabel;

namespace ampscope::ui {

class ScalingPlot;

class ScalingView : public QWidget, public RunObserver {
    Q_OBJECT
public:
    explicit ScalingView(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void takeRecord(const nlohmann::json& record) override;
    void endOfBatch() override;

    // The chosen point by its label ("fc1: input (forward)"); false when there is none.
    bool setPoint(const QString& label);
    QString point() const;
    QStringList pointLabels() const;
    // The kept probe steps of the chosen point whose records said saturated > 0.
    std::vector<int64_t> overflowSteps() const;

    ScalingPlot* plot() const { return plot_; }
    QComboBox* pointChooser() const { return pointBox_; }
    QLabel* note() const { return noteLabel_; }

private:
    void updateChooser();
    void rebuildPlot();

    ScalingPlot* plot_ = nullptr;
    QComboBox* pointBox_ = nullptr;
    QLabel* noteLabel_ = nullptr;
    FormatQuantHistory history_;
    bool dirty_ = false;
    bool updatingChooser_ = false;
};

}  // namespace ampscope::ui
