#pragma once
// GradientHistogramView: the "Gradient histograms" dock. For one layer and one kind of
// gradient (parameter gradients unscaled, scaled as fp16 holds them, or activation
// gradients) a heatmap over the probe steps (x step, y log2|g|, colour = elements on a
// log scale, explicit rows for 0, NaN, +Inf and -Inf) with the fp16 ranges as bands, and
// a slice: one step's histogram as bars.
//
// Contract:
// - A RunObserver: "histogram" records (core/probes/ProbeRecords.md) come through
//   takeRecord, the loss scale of every step through appendSteps, the layer list from
//   run_info's "layers" (and any layer a record names). Of every layer and kind up to
//   kMaxKeptProbeSteps records are kept in a ProbeSeriesStore (one histogram per probe
//   step; when full it is thinned by its rule, weighing each step by its NaN/Inf
//   elements, and the heatmap is redrawn from what is left), so choosing another layer
//   or kind rebuilds the heatmap from them; a tick appends only the new columns of what
//   is shown and redraws once, in endOfBatch. The heatmap caps its columns (HeatmapPlot). The loss
//   scale is kept as the steps where it changed.
// - Rows: bin k of log2|g| (k = -64..32) holds [2^k, 2^(k+1)); elements below 2^-64 are
//   counted in the lowest bin and those at or above 2^33 in the highest.
// - Bands, for every kind: fp16 flushes to 0 (|g| <= 2^-25: bins <= -26; bin -25 rounds
//   up to 2^-24, the smallest subnormal, all but the tie 2^-25), subnormal (up to 2^-14,
//   the smallest normal), overflow to inf (from 2^16). Scaled parameter gradients and
//   activation gradients are what fp16 holds, so the bands apply to them as drawn.
//   Unscaled parameter gradients are those values divided by the loss scale: for them
//   dashed lines mark the limits divided by the current scale (the latest step's), where
//   an unscaled gradient has to sit to survive once scaled. They move when the scale
//   changes and are left out while the scale is 1 (they would lie on the bands' edges).
// - The slice shows one probe step: click a heatmap column or move the slider; with the
//   slider at its right end it follows the newest step. Its dashed lines use that step's
//   scale.
#include <QString>
#include <QWidget>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "RunObserver.h"
#include "probes/ExponentHistogram.h"
#include "views/LayerOrder.h"
#include "views/ProbeSeriesStore.h"

class QComboBox;
class QLabel;
class QSlider;
class QMouseEvent;

namespace ampscope::ui {

class HeatmapPlot;
class HistogramSlicePlot;

class GradientHistogramView : public QWidget, public RunObserver {
    Q_OBJECT
public:
    // Records kept per layer and kind; when full, neighbouring pairs are thinned to one
    // (ProbeSeriesStore), so a 10^6-step run costs what 2 x this many probe steps do. The
    // run directory keeps them all.
    static constexpr std::size_t kMaxKeptProbeSteps = 1024;
    // Loss-scale changes kept for the "limit / scale" lines (thinned the same way).
    static constexpr std::size_t kMaxKeptScaleChanges = 65536;

    explicit GradientHistogramView(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;
    void takeRecord(const nlohmann::json& record) override;
    void endOfBatch() override;

    // The kinds in the chooser's order (probe_kind names).
    static QStringList kinds();
    static QString kindText(const QString& kind);

    void setLayer(const QString& layer);
    void setKind(const QString& kind);
    QString layer() const;
    QString kind() const;
    // Picks the slice's step (the nearest probe step at or before it); stops following.
    void selectStep(int64_t step);
    std::optional<int64_t> selectedStep() const;
    bool followsNewestStep() const { return following_; }

    HeatmapPlot* heatmap() const { return heatmap_; }
    HistogramSlicePlot* slice() const { return slice_; }
    QComboBox* layerChooser() const { return layerBox_; }
    QComboBox* kindChooser() const { return kindBox_; }
    QSlider* stepSlider() const { return stepSlider_; }
    // y of the dashed "limit ÷ scale" lines on the heatmap (flush, smallest normal,
    // overflow); empty when none are drawn.
    std::vector<double> scaledLimitYs() const;
    // y ranges of the three fp16 bands on the heatmap, low to high.
    std::vector<std::pair<double, double>> bandYs() const;
    // Rows of the heatmap: value bins first (row = k + 64), then these names.
    static QStringList namedRows();

private:
    using HistogramSeries = ProbeSeriesStore<ExponentHistogram>;

    const HistogramSeries* shownSeries() const;
    void rebuildLayerChooser();
    void chooseDefaultLayer();
    void rebuildHeatmap();
    void appendNewColumns();
    void addBandName(double y, Qt::Alignment side, const QString& name, const QColor& fill);
    void updateLimitLines();
    void updateFocusRange();
    void updateSlider();
    void updateSlice();
    void updatePlaceholder();
    QString heatmapPlaceholderText() const;
    void onHeatmapClick(QMouseEvent* event);
    double scaleAt(int64_t step) const;
    static std::vector<double> columnOf(const ExponentHistogram& histogram);

    HeatmapPlot* heatmap_ = nullptr;
    HistogramSlicePlot* slice_ = nullptr;
    QComboBox* layerBox_ = nullptr;
    QComboBox* kindBox_ = nullptr;
    QSlider* stepSlider_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    QLabel* noteLabel_ = nullptr;

    LayerOrder layers_;
    std::map<QString, HistogramSeries> series_;  // key: kind + '/' + layer
    // The loss scale from each step where it changed on (thinned by the store's rule
    // with no weight: every second change).
    ProbeSeriesStore<double> scaleChanges_{kMaxKeptScaleChanges};
    int64_t lastStep_ = 0;              // the latest step seen
    bool heatmapStale_ = false;         // the shown series was thinned out
    std::size_t shownColumns_ = 0;      // records of the shown series in the heatmap
    int lowestBin_ = kMaxExponent + 1;  // exponent bins with data in the shown series
    int highestBin_ = kMinExponent - 1;
    std::vector<int> bandIds_;
    std::vector<int> scaledLineIds_;
    double shownLog2Scale_ = 0.0;
    int64_t probesEvery_ = 0;
    std::optional<int64_t> selectedStep_;
    bool sliceStale_ = true;
    QString sliceEmptyText_;
    bool following_ = true;
    bool userChoseLayer_ = false;
    bool layersChanged_ = false;
    bool dataChanged_ = false;
    bool updatingControls_ = false;
    QPoint pressPixel_;
};

}  // namespace ampscope::ui
