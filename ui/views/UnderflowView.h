#pragma once
// UnderflowView: the "Underflow" dock. What fp16 does to each layer's tensors over the
// probe steps: per shown run a heatmap, layer x step, of the fraction of the elements
// flushed to 0 (or held as subnormals, or overflowed to inf: a chooser), side by side
// when runs are compared, on one colour scale (UnderflowMapPane); and below them the
// fraction as one line per layer for the layers checked in the list beside it: the
// focused run's, or, with runs compared, every shown run's overlaid (run colour, a
// dash pattern per layer).
//
// Contract:
// - Reads the run set: each shown run's UnderflowSeries ("underflow" records with
//   multiplier 1, kept and thinned there). Of which tensor: the scaled parameter
//   gradients (every mode), or, where fp16 is emulated, the activation gradients and the
//   forward activations.
// - Changing the fraction or the tensor draws the maps and lines again from the kept
//   counts; a batch of a shown run appends its new complete steps.
// - The line plot's y axis is logarithmic once the values shown span more than two
//   decades (zeros are gaps there); linear from 0 otherwise.
#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "runset/RunChanges.h"
#include "views/UnderflowMapPane.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QListWidget;

namespace ampscope::ui {

class HeatmapPlot;
class RunSet;
class UnderflowFractionPlot;

class UnderflowView : public QWidget {
    Q_OBJECT
public:
    using Fraction = UnderflowFraction;
    static constexpr int kMaxSideBySide = 4;

    explicit UnderflowView(RunSet* set, QWidget* parent = nullptr);

    void setFraction(Fraction fraction);
    Fraction fraction() const;
    // The underflow record kind shown: "param_grad_scaled", "activation_grad", "activation".
    void setTensorKind(const QString& kind);
    QString tensorKind() const;
    static double fractionOf(const Fp16ClassCounts& counts, Fraction fraction) {
        return underflowFractionOf(counts, fraction);
    }

    // The focused run's rows (layers in model order; the map draws the first on top).
    QStringList rowLayers() const;
    // The focused run's heatmap cell of `layer` at its `column`-th column (NaN: none).
    double cell(const QString& layer, int column) const;
    void setLayerChecked(const QString& layer, bool checked);

    HeatmapPlot* heatmap() const;
    int paneCount() const { return static_cast<int>(panes_.size()); }
    UnderflowMapPane* pane(int index) const;
    UnderflowFractionPlot* linePlot() const { return linePlot_; }
    QComboBox* fractionChooser() const { return fractionBox_; }
    QComboBox* tensorChooser() const { return tensorBox_; }
    QListWidget* layerList() const { return layerList_; }

private:
    void onChanged(RunId run, RunChanges what);
    void rebuildPanes();
    void showChoice();
    void shareColours();
    void rebuildLines();
    void appendLines();
    bool appendLinePoints(std::size_t pane, bool logarithmic);
    void updateLogScale();
    void updateEmptyTexts();
    void onLayerItemChanged();
    QString fractionName() const;

    RunSet* set_;
    QHBoxLayout* panesLayout_ = nullptr;
    std::vector<UnderflowMapPane*> panes_;
    UnderflowFractionPlot* linePlot_ = nullptr;
    QComboBox* fractionBox_ = nullptr;
    QComboBox* tensorBox_ = nullptr;
    QListWidget* layerList_ = nullptr;
    QLabel* noteLabel_ = nullptr;

    // The lines: the focused run's rows (layers), and per pane drawn as lines how much of
    // its run's kept counts they hold.
    struct LineProgress {
        std::size_t steps = 0;
        int thinnings = 0;
        QStringList rows;
    };
    QStringList lineRows_;
    std::vector<LineProgress> lineProgress_;
    double lowestPositive_ = 0.0;  // over the values in the line plot
    double highest_ = 0.0;
    bool updatingControls_ = false;
};

}  // namespace ampscope::ui
