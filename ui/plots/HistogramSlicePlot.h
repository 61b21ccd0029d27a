#pragma once
// HistogramSlicePlot: one probe step's gradient-exponent histogram as bars: x = log2|g|
// (bar k covers [2^k, 2^(k+1))), y = elements on a log axis (counts span decades).
//
// Contract:
// - setSlice() shows one histogram; the title row names layer, kind and step, and counts
//   what has no exponent (zero, NaN, +Inf, -Inf). clearSlice() shows why there is none.
// - The fp16 ranges are bands (flushed to 0 at |g| <= 2^-25, subnormal up to 2^-14,
//   overflow from 2^16), the same as the heatmap's. With `log2Scale` given (unscaled
//   gradients) dashed lines mark the limits divided by that step's scale: where an
//   unscaled gradient must sit to survive once scaled.
// - The x range covers the bars and every limit drawn; zoom/pan both axes, a double
//   click restores it; the tooltip gives the bin, its value range and its exact count.
// - setSlice() queues one replot; it does nothing else expensive (97 bars).
#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "plots/InteractivePlot.h"
#include "probes/ExponentHistogram.h"

namespace ampscope::ui {

class HistogramSlicePlot : public InteractivePlot {
    Q_OBJECT
public:
    struct Slice {
        int64_t step = 0;
        QString layer;
        QString kindText;
        ExponentHistogram histogram;
        // Unscaled gradients: log2 of the scale they were held at; nullopt draws no
        // scaled limits (scaled kinds, or a scale of 1 where they sit on the bands).
        std::optional<double> log2Scale;
    };

    explicit HistogramSlicePlot(QWidget* parent = nullptr);

    void setSlice(const Slice& slice);
    void clearSlice(const QString& why);

    bool hasSlice() const { return hasSlice_; }
    int64_t step() const { return slice_.step; }
    QString titleText() const;
    // The bar of exponent k (elements in [2^k, 2^(k+1))); 0 outside the bins.
    double barValue(int exponent) const;
    // x of the dashed scaled-limit lines (flush, smallest normal, overflow), empty when
    // none are drawn.
    std::vector<double> scaledLimitXs() const;
    // The bar under the mouse: its bin, value range, exact count and fp16 fate.
    QString tooltipText(QPoint pixel) const override;

public Q_SLOTS:
    void resetView() override;

private:
    QCPItemRect* addBand(double xLow, double xHigh, const QColor& fill, const QString& label);
    void placeScaledLines();
    void applyRanges();

    QCPTextElement* title_ = nullptr;
    QCPBars* bars_ = nullptr;
    QCPGraph* scaledLegend_ = nullptr;  // no data: a legend entry for the dashed lines
    std::vector<QCPItemStraightLine*> scaledLines_;
    std::vector<QCPItemText*> scaledLabels_;
    QCPItemText* placeholder_ = nullptr;
    Slice slice_;
    bool hasSlice_ = false;
};

}  // namespace ampscope::ui
