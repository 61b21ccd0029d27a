#pragma once
// GradientHistogramView: the "Gradient histograms" dock. For one layer and one kind of
// gradient (parameter gradients unscaled, scaled as fp16 holds them, or activation
// gradients) a heatmap per shown run (HistogramMapPane: x step, y log2|g|, colour =
// elements on a log scale, the fp16 ranges as bands), side by side when runs are
// compared, on one log2|g| axis and one colour scale so that "16 binades higher" is seen
// at a glance; and a slice: one step's histogram of the focused run as bars.
//
// Contract:
// - Reads the run set: each shown run's HistogramSeries (kept and thinned there, not
//   here). A batch of a shown run appends that run's new columns and redraws once; the
//   shown runs changing (focus, compare) draws the panes again (at most kMaxSideBySide).
// - The layer chooser lists the layers of the shown runs (the focused run's model order
//   first); a run without the chosen layer or kind says so in its pane. Until the user
//   picks a layer, the first layer of the focused run that has this kind is shown.
// - Rows: bin k of log2|g| (k = -64..32) holds [2^k, 2^(k+1)); elements below 2^-64 are
//   counted in the lowest bin and those at or above 2^33 in the highest.
// - The slice shows one probe step of the focused run: click a heatmap column or move the
//   slider; with the slider at its right end it follows the newest step. Its dashed lines
//   use that step's scale. One run: the map and its slice side by side. Several: the
//   maps take the dock, the slice beneath them when its switch is on.
#include <QString>
#include <QWidget>
#include <cstdint>
#include <optional>
#include <vector>

#include "runset/HistogramSeries.h"
#include "runset/RunChanges.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSplitter;
class QHBoxLayout;

namespace ampscope::ui {

class HeatmapPlot;
class HistogramMapPane;
class HistogramSlicePlot;
class RunSet;

class GradientHistogramView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxSideBySide = 4;

    explicit GradientHistogramView(RunSet* set, QWidget* parent = nullptr);

    // The kinds in the chooser's order (probe_kind names).
    static QStringList kinds() { return HistogramSeries::kinds(); }
    static QString kindText(const QString& kind);
    // Rows of a heatmap: value bins first (row = k + 64), then these names.
    static QStringList namedRows();

    void setLayer(const QString& layer);
    void setKind(const QString& kind);
    QString layer() const;
    QString kind() const;
    // Picks the slice's step (the nearest probe step at or before it); stops following.
    void selectStep(int64_t step);
    std::optional<int64_t> selectedStep() const;
    bool followsNewestStep() const { return following_; }

    // The focused run's heatmap (the first pane).
    HeatmapPlot* heatmap() const;
    int paneCount() const { return static_cast<int>(panes_.size()); }
    HistogramMapPane* pane(int index) const;
    HistogramSlicePlot* slice() const { return slice_; }
    QComboBox* layerChooser() const { return layerBox_; }
    QComboBox* kindChooser() const { return kindBox_; }
    QSlider* stepSlider() const { return stepSlider_; }
    // With several runs side by side the maps take the dock; this shows the slice too.
    QCheckBox* sliceSwitch() const { return sliceSwitch_; }
    // The focused run's dashed "limit ÷ scale" lines and fp16 bands (HistogramMapPane).
    std::vector<double> scaledLimitYs() const;
    std::vector<std::pair<double, double>> bandYs() const;

private:
    void onChanged(RunId run, RunChanges what);
    const HistogramSeries::Series* focusedSeries() const;
    void rebuildPanes();
    void rebuildLayerChooser();
    void chooseDefaultLayer();
    void showChoice();
    void shareScales();
    void updateNote();
    void updateSlider();
    void updateSlice();

    RunSet* set_;
    HistogramSlicePlot* slice_ = nullptr;
    QComboBox* layerBox_ = nullptr;
    QComboBox* kindBox_ = nullptr;
    QSlider* stepSlider_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    QLabel* noteLabel_ = nullptr;
    QCheckBox* sliceSwitch_ = nullptr;
    QWidget* sliceBox_ = nullptr;
    QSplitter* splitter_ = nullptr;
    QHBoxLayout* panesLayout_ = nullptr;
    std::vector<HistogramMapPane*> panes_;

    std::optional<int64_t> selectedStep_;
    QString sliceEmptyText_;
    bool sliceStale_ = true;
    bool following_ = true;
    bool userChoseLayer_ = false;
    bool updatingControls_ = false;
};

}  // namespace ampscope::ui
