#pragma once
// HistogramMapPane: one run's gradient-histogram heatmap in the Gradient histograms dock
// (x step, y log2|g|, colour = elements on a log scale, explicit rows for 0, NaN, +Inf
// and -Inf), with its run's name above it; runs compared stand side by side, one pane
// each.
//
// Contract:
// - show(run, kind, layer) draws that run's kept histograms of one layer and kind (the
//   run's HistogramSeries: columns as the store hands them, nothing averaged again);
//   update() appends the columns that came since, or draws them all again when the store
//   thinned them.
// - Bands, for every kind: fp16 flushes to 0 (|g| <= 2^-25: bins <= -26; bin -25 rounds
//   up to 2^-24, the smallest subnormal, all but the tie 2^-25), subnormal (up to 2^-14),
//   overflow to inf (from 2^16). Unscaled parameter gradients are what fp16 held divided
//   by the loss scale: dashed lines mark the limits divided by the run's latest scale
//   (left out while the scale is 1).
// - wantedYRange() is where its data and marks are; the dock gives every pane the same
//   range and the same colour scale (applyShared), so runs compare at a glance.
// - A click on a column emits columnClicked(step).
#include <QWidget>
#include <cstdint>
#include <utility>
#include <vector>

#include "probes/ExponentHistogram.h"

class QLabel;

namespace ampscope::ui {

class HeatmapPlot;
class RunModel;

class HistogramMapPane : public QWidget {
    Q_OBJECT
public:
    explicit HistogramMapPane(QWidget* parent = nullptr);

    void show(const RunModel* run, const QString& kind, const QString& layer, bool titled);
    void update();
    const RunModel* run() const { return run_; }
    const QString& kind() const { return kind_; }
    const QString& layer() const { return layer_; }
    HeatmapPlot* heatmap() const { return heatmap_; }
    QLabel* title() const { return title_; }

    std::pair<double, double> wantedYRange() const;
    void applyShared(double lowY, double highY, double lowColour, double highColour);
    // y of the dashed "limit ÷ scale" lines (flush, smallest normal, overflow); empty
    // when none are drawn.
    std::vector<double> scaledLimitYs() const;
    // y ranges of the three fp16 bands, low to high.
    std::vector<std::pair<double, double>> bandYs() const;
    // The latest scale's log2 when dashed lines are drawn (0: none).
    double shownLog2Scale() const { return scaledLineIds_.empty() ? 0.0 : shownLog2Scale_; }
    QString placeholderText() const;

Q_SIGNALS:
    void columnClicked(int64_t step);

private:
    void addBandName(double y, Qt::Alignment side, const QString& name, const QColor& fill);
    void appendNewColumns();
    void updateLimitLines();
    void updatePlaceholder();
    static std::vector<double> columnOf(const ExponentHistogram& histogram);

    QLabel* title_ = nullptr;
    HeatmapPlot* heatmap_ = nullptr;
    const RunModel* run_ = nullptr;
    QString kind_, layer_;
    std::size_t shownColumns_ = 0;
    int thinningsSeen_ = 0;
    int lowestBin_ = kMaxExponent + 1;  // exponent bins with data in the shown series
    int highestBin_ = kMinExponent - 1;
    std::vector<int> bandIds_;
    std::vector<int> scaledLineIds_;
    double shownLog2Scale_ = 0.0;
};

}  // namespace ampscope::ui
