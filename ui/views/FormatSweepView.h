#pragma once
// FormatSweepView: the "Format sweep" dock. How every layer's fp32 tensor would fare in
// each number format on one sweep step: a heatmap, layer x format, of the fraction of
// elements flushed to zero, the fraction saturated, or the signal-to-noise ratio (a
// chooser), for the weight gradients or the activations entering the matmul/conv (a
// chooser), and a slider over the sweep steps. The focused run (A) against the run
// compared with it (B, RunSet::partner): two heatmaps side by side on one colour scale.
//
// Contract:
// - Reads the run set: A's and B's FormatSweepSeries ("format_sweep" records, kept and
//   thinned there).
// - Rows are the layers with records of the chosen tensor, in model order (first on top);
//   columns the formats in the order the records first named them. A cell is the record's
//   underflowFraction(), saturatedFraction() or snrDb() of that layer and format at the
//   slider's step (A's kept steps; B shows its latest kept step at or before it).
// - The slider follows new steps while it is at the last one; moved back, it stays.
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "probes/FormatSweepRecord.h"
#include "runset/FormatSweepSeries.h"
#include "views/RunPairView.h"

class QComboBox;
class QLabel;
class QSlider;

namespace ampscope::ui {

class CategoryHeatmapPlot;
class RunModel;
class RunSet;

class FormatSweepView : public RunPairView {
    Q_OBJECT
public:
    enum class Metric { Underflow, Saturation, Snr };

    explicit FormatSweepView(RunSet* set, QWidget* parent = nullptr);

    void setMetric(Metric metric);
    Metric metric() const;
    // "gradient" or "activation" (format_sweep_tensor).
    void setTensor(const QString& tensor);
    QString tensor() const;
    // Shows A's kept sweep step at `index` (the slider's position).
    void setStepIndex(int index);
    int64_t shownStep() const { return shownStep_; }
    std::vector<int64_t> keptSteps() const;

    static double metricOf(const FormatSweepRecord& record, Metric metric);

    // A's heatmap, and B's (hidden while no run is compared with A).
    CategoryHeatmapPlot* heatmap() const { return heatmaps_[kA]; }
    CategoryHeatmapPlot* partnerHeatmap() const { return heatmaps_[kB]; }
    QSlider* stepSlider() const { return slider_; }
    QLabel* stepLabel() const { return stepLabel_; }
    QComboBox* metricChooser() const { return metricBox_; }
    QComboBox* tensorChooser() const { return tensorBox_; }

private:
    void showRuns() override;
    void shownRunChanged() override;
    const FormatSweepSeries::TensorData* dataOf(int side) const;
    void updateSlider();
    void redraw();

    CategoryHeatmapPlot* heatmaps_[2] = {};
    QComboBox* metricBox_ = nullptr;
    QComboBox* tensorBox_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    QLabel* noteLabel_ = nullptr;
    int64_t shownStep_ = -1;
    bool followLatest_ = true;
    bool updatingSlider_ = false;
};

}  // namespace ampscope::ui
