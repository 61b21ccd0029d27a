#pragma once
// ScalingView: the "Scaling" dock. For one rounding point (layer x operand x direction,
// a chooser), over the probe steps: the tensor's own amax, the amax its scale came from
// (delayed scaling: the history's max or most recent; with current scaling the two
// coincide), the scale, and the overflow steps (saturated > 0) marked. The focused run
// (A) against the run compared with it (B, RunSet::partner): two plots side by side.
//
// Contract:
// - Reads the run set: A's and B's FormatQuantHistory ("format_quant" records, written by
//   runs in fp8, mxfp8, mxfp4, nvfp4); the chooser lists A's points, then B's others.
// - A plot (ScalingPlot) holds one point per kept probe step of the chosen point:
//   amax, scale_amax, scale; an overflow mark exactly at the steps with saturated > 0.
//   MX points have no tensor scale (scale is NaN): only amax and the marks are drawn.
// - The note under the chooser gives A's recipe, format, latest lag (amax / scale_amax)
//   and how many overflow steps its kept steps hold.
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "views/RunPairView.h"

class QComboBox;
class QLabel;

namespace ampscope::ui {

class RunModel;
class RunSet;
class ScalingPlot;

class ScalingView : public RunPairView {
    Q_OBJECT
public:
    explicit ScalingView(RunSet* set, QWidget* parent = nullptr);

    // The chosen point by its label ("fc1: input (forward)"); false when there is none.
    bool setPoint(const QString& label);
    QString point() const;
    QStringList pointLabels() const;
    // A's kept probe steps of the chosen point whose records said saturated > 0.
    std::vector<int64_t> overflowSteps() const;

    // A's plot, and B's (hidden while no run is compared with A).
    ScalingPlot* plot() const { return plots_[kA]; }
    ScalingPlot* partnerPlot() const { return plots_[kB]; }
    QComboBox* pointChooser() const { return pointBox_; }
    QLabel* note() const { return noteLabel_; }

private:
    void showRuns() override;
    void shownRunChanged() override;
    void updateChooser();
    void rebuildPlots();
    // Fills a side's plot; returns A's note for side A.
    QString fill(int side);

    ScalingPlot* plots_[2] = {};
    QComboBox* pointBox_ = nullptr;
    QLabel* noteLabel_ = nullptr;
    bool updatingChooser_ = false;
};

}  // namespace ampscope::ui
