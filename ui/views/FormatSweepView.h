#pragma once
// FormatSweepView: the "Format sweep" dock. How every layer's fp32 tensor would fare in
// each number format on one sweep step: a heatmap, layer x format, of the fraction of
// elements flushed to zero, the fraction saturated, or the signal-to-noise ratio (a
// chooser), for the weight gradients or the activations entering the matmul/conv (a
// chooser), and a slider over the sweep steps.
//
// Contract:
// - A RunObserver: "format_sweep" records (core/probes/ProbeRecords.md), parsed with
//   formatSweepRecordFromJson, come through takeRecord; run_info gives the layer order.
// - Rows are the layers with records of the chosen tensor, in model order (first on top);
//   columns the formats in the order the records first named them. A cell is the record's
//   underflowFraction(), saturatedFraction() or snrDb() of that layer and format at the
//   slider's step (the latest step at or before it that the store kept); no record: empty.
// - The slider runs over the kept sweep steps (at most kMaxKeptSweepSteps per tensor in a
//   ProbeSeriesStore, thinned by its rule weighing a step by what the formats lost). It
//   follows new steps while it is at the last one; moved back, it stays where it is.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <map>

#include "RunObserver.h"
#include "probes/FormatSweepRecord.h"
#include "views/LayerOrder.h"
#include "views/ProbeSeriesStore.h"

class QComboBox;
class QLabel;
class QSlider;

namespace ampscope::ui {

class CategoryHeatmapPlot;

class FormatSweepView : public QWidget, public RunObserver {
    Q_OBJECT
public:
    enum class Metric { Underflow, Saturation, Snr };

    static constexpr std::size_t kMaxKeptSweepSteps = 512;

    explicit FormatSweepView(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void takeRecord(const nlohmann::json& record) override;
    void endOfBatch() override;

    void setMetric(Metric metric);
    Metric metric() const;
    // "gradient" or "activation" (format_sweep_tensor).
    void setTensor(const QString& tensor);
    QString tensor() const;
    // Shows the kept sweep step at `index` (the slider's position).
    void setStepIndex(int index);
    int64_t shownStep() const { return shownStep_; }
    std::vector<int64_t> keptSteps() const;

    static double metricOf(const FormatSweepRecord& record, Metric metric);

    CategoryHeatmapPlot* heatmap() const { return heatmap_; }
    QSlider* stepSlider() const { return slider_; }
    QLabel* stepLabel() const { return stepLabel_; }
    QComboBox* metricChooser() const { return metricBox_; }
    QComboBox* tensorChooser() const { return tensorBox_; }

private:
    // One sweep step: layer -> format -> the record.
    using StepSweep = std::map<QString, std::map<QString, FormatSweepRecord>>;
    using TensorData = ProbeSeriesStore<StepSweep>;

    const TensorData* shownData() const;
    void updateSlider();
    void redraw();

    CategoryHeatmapPlot* heatmap_ = nullptr;
    QComboBox* metricBox_ = nullptr;
    QComboBox* tensorBox_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    QLabel* noteLabel_ = nullptr;

    LayerOrder layers_;
    std::map<QString, TensorData> data_;  // by tensor
    QStringList formats_;                 // first-seen order
    int64_t shownStep_ = -1;
    bool followLatest_ = true;
    bool dirty_ = false;
    bool updatingSlider_ = false;
};

}  // namespace ampscope::ui
