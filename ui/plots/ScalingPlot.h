#pragma once
// ScalingPlot: one rounding point's per-tensor scaling over the probe steps, for the
// Scaling dock: the tensor's own amax, the amax its scale came from (delayed scaling:
// the history's; the vertical gap between the two lines on the log axis is the lag),
// the scale itself on the right axis, and the overflow steps (elements saturated)
// marked on the amax line. The Scaling dock feeds it; the window does not.
//
// Contract:
// - append(step, amax, scaleAmax, scale, overflow) adds a probe step; overflow adds a
//   mark at (step, amax). clearPoints() empties every series.
// - setPerTensorScale(false) (MX and NVFP4 points: block scales, no tensor scale from an
//   amax) hides the scale-amax and scale lines and the right axis.
// - Both y axes are log10 (amax and scale are positive; a 0 has no place there and is a
//   gap). Otherwise a TimeSeriesPlot: legend, zoom/pan, double click resets, and the
//   tooltip gives the step's values and the lag amax / scale-amax.
#include <vector>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class ScalingPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    explicit ScalingPlot(QWidget* parent = nullptr);


    void clearPoints();
    void append(double step, double amax, double scaleAmax, double scale, bool overflow);
    void setPerTensorScale(bool perTensor);
    bool perTensorScale() const { return perTensor_; }
    void setEmptyText(const QString& text) { setPlaceholder(text); }

    QCPGraph* amaxGraph() const { return amax_->graph(); }
    QCPGraph* scaleAmaxGraph() const { return scaleAmax_->graph(); }
    QCPGraph* scaleGraph() const { return scale_->graph(); }
    QCPGraph* overflowGraph() const { return overflow_->graph(); }

    QString hoverText(double step, QPoint pixel) const override;

protected:
    void applyAutoRanges() override;

private:
    SeriesGraph* amax_ = nullptr;
    SeriesGraph* scaleAmax_ = nullptr;
    SeriesGraph* scale_ = nullptr;
    SeriesGraph* overflow_ = nullptr;
    bool perTensor_ = true;
};

}  // namespace ampscope::ui
