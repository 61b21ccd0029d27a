#pragma once
// FormatRangesPlot: the number formats' ranges on one log2 axis, with a tensor's
// exponent histogram under them, for the Format explorer: where a layer's values fall
// against what each format can hold.
//
// Contract:
// - Top: one row per FormatSpan (first on top): a light bar over the subnormals
//   [minSubnormal, minNormal), a solid bar over the normal range [minNormal, maxFinite].
//   x is log2|x|, ticked as powers of two.
// - Bottom, on the same x: the histogram, bin k drawn over [k, k + 1) (the values with
//   2^k <= |x| < 2^(k+1)), its height the elements counted there.
// - setMarkedValue(v) draws a vertical line at log2|v| through both (NaN, 0 or
//   non-finite: none).
// - A click on a histogram bar (press and release on the same spot) emits binClicked(k).
// - The x range spans the histogram's bins and the narrow formats' ranges; the wide ones
//   (fp32, bf16) run off the sides (the tooltip gives their full range). The mouse as in
//   every plot: zoom/pan, double click resets, tooltip.
#include <QPoint>
#include <QString>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "plots/InteractivePlot.h"

namespace ampscope::ui {

struct FormatSpan {
    QString name;
    double minSubnormal = 0.0;  // 0: none
    double minNormal = 0.0;
    double maxFinite = 0.0;
};

class FormatRangesPlot : public InteractivePlot {
    Q_OBJECT
public:
    explicit FormatRangesPlot(QWidget* parent = nullptr);

    void setFormats(const std::vector<FormatSpan>& spans);
    // exponent k -> elements with 2^k <= |x| < 2^(k+1); `title` names it in the legend.
    void setHistogram(const std::map<int, int64_t>& bins, const QString& title);
    void setMarkedValue(double value);
    void setPlaceholder(const QString& text);  // over the histogram
    QString placeholderText() const;

    const std::vector<FormatSpan>& formats() const { return spans_; }
    const std::map<int, int64_t>& histogram() const { return bins_; }
    double markedLog2() const { return markedLog2_; }
    QCPAxisRect* rangesRect() const { return rangesRect_; }
    QCPAxisRect* histogramRect() const { return histogramRect_; }
    // The bin under `pixel` (in the histogram), if it holds elements.
    std::optional<int> binAt(QPoint pixel) const;
    // The pixel in the middle of bin k's bar (for tests that click it).
    QPoint binCentre(int exponent) const;

    QString tooltipText(QPoint pixel) const override;

public Q_SLOTS:
    void resetView() override;

Q_SIGNALS:
    void binClicked(int exponent);

protected:
    void leftClicked(QPoint pixel) override;

private:
    void redrawSpans();

    QCPAxisRect* rangesRect_ = nullptr;
    QCPAxisRect* histogramRect_ = nullptr;
    QCPBars* bars_ = nullptr;
    QCPItemStraightLine* rangesMark_ = nullptr;
    QCPItemStraightLine* histogramMark_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    std::vector<QCPAbstractItem*> spanItems_;
    std::vector<FormatSpan> spans_;
    std::map<int, int64_t> bins_;
    double markedLog2_ = 0.0;
    bool marked_ = false;
};

}  // namespace ampscope::ui
