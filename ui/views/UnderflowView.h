#pragma once
// UnderflowView: the "Underflow" dock. What fp16 does to each layer's tensors over the
// probe steps: a heatmap, layer x step, of the fraction of the elements flushed to 0
// (or held as subnormals, or overflowed to inf: a chooser), and below it the same
// fraction as one line per layer for the layers checked in the list beside it.
//
// Contract:
// - A RunObserver: "underflow" records (core/probes/ProbeRecords.md) with multiplier 1
//   come through takeRecord; the "what if" records (other multipliers) are not shown
//   here. Of which tensor: the scaled parameter gradients (every mode), or, where fp16
//   is emulated, the activation gradients and the forward activations.
// - fraction = elements in that class / all elements of the tensor (zeros included), as
//   Fp16ClassCounts::fraction does.
// - Rows are the layers that have records of the chosen tensor, in model order (first
//   layer on top). A probe step's column is drawn once all those layers have reported it
//   (or a later step arrived), so a tick that splits a step's records leaves no hole.
// - Changing the fraction or the tensor rebuilds both plots from the kept records (one
//   small struct per layer and probe step, at most kMaxKeptProbeSteps steps per tensor
//   kind in a ProbeSeriesStore: when full it is thinned by its rule, weighing each step
//   by how much fp16 lost there, and the plots are redrawn from what is left); a tick
//   appends only new steps.
// - The line plot's y axis is logarithmic once the values shown span more than two
//   decades (zeros are gaps there); linear from 0 otherwise.
#include <QString>
#include <QWidget>
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "RunObserver.h"
#include "probes/Fp16Classes.h"
#include "views/LayerOrder.h"
#include "views/ProbeSeriesStore.h"

class QComboBox;
class QLabel;
class QListWidget;

namespace ampscope::ui {

class HeatmapPlot;
class UnderflowFractionPlot;

class UnderflowView : public QWidget, public RunObserver {
    Q_OBJECT
public:
    enum class Fraction { Flushed, Subnormal, Overflow };

    // Probe steps kept per tensor kind; when full, neighbouring pairs are thinned to one
    // (ProbeSeriesStore), so a 10^6-step run costs what 2 x this many probe steps do. The
    // run directory keeps them all.
    static constexpr std::size_t kMaxKeptProbeSteps = 2048;

    explicit UnderflowView(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    // Only the last step: the map's x axis spans the run, not just its probe steps.
    void appendSteps(const std::vector<StepMetrics>& steps) override {
        if (!steps.empty()) lastStep_ = std::max(lastStep_, steps.back().step);
    }
    void takeRecord(const nlohmann::json& record) override;
    void endOfBatch() override;

    void setFraction(Fraction fraction);
    Fraction fraction() const;
    // The underflow record kind shown: "param_grad_scaled", "activation_grad", "activation".
    void setTensorKind(const QString& kind);
    QString tensorKind() const;
    static double fractionOf(const Fp16ClassCounts& counts, Fraction fraction);

    // Layers that are heatmap rows, in model order (the map draws the first on top).
    QStringList rowLayers() const { return rows_; }
    // The heatmap cell of `layer` at its `column`-th column (NaN: none).
    double cell(const QString& layer, int column) const;
    void setLayerChecked(const QString& layer, bool checked);

    HeatmapPlot* heatmap() const { return heatmap_; }
    UnderflowFractionPlot* linePlot() const { return linePlot_; }
    QComboBox* fractionChooser() const { return fractionBox_; }
    QComboBox* tensorChooser() const { return tensorBox_; }
    QListWidget* layerList() const { return layerList_; }

private:
    // What each layer reported at one probe step.
    using StepCounts = std::map<QString, Fp16ClassCounts>;
    using KindData = ProbeSeriesStore<StepCounts>;

    const KindData* shownData() const;
    QString fractionName() const;
    void rebuildRows();
    void rebuildPlots();
    void appendCompleteSteps();
    bool stepComplete(const KindData& data, std::size_t index) const;
    void updateLogScale();
    void updateEmptyTexts();
    void onLayerItemChanged();

    HeatmapPlot* heatmap_ = nullptr;
    UnderflowFractionPlot* linePlot_ = nullptr;
    QComboBox* fractionBox_ = nullptr;
    QComboBox* tensorBox_ = nullptr;
    QListWidget* layerList_ = nullptr;
    QLabel* noteLabel_ = nullptr;

    LayerOrder layers_;
    std::map<QString, KindData> data_;               // by record kind
    std::map<QString, QStringList> layersWithData_;  // by record kind, first seen order
    QStringList rows_;                               // shown rows, model order
    std::size_t shownSteps_ = 0;                     // steps of the shown kind already in the plots
    double lowestPositive_ = 0.0;                    // over the values in the line plot
    double highest_ = 0.0;
    int64_t lastStep_ = 0;
    int64_t probesEvery_ = 0;
    bool emulated_ = false;
    bool dirty_ = false;
    bool replotNeeded_ = false;  // the shown kind was thinned out
    bool updatingControls_ = false;
};

}  // namespace ampscope::ui
