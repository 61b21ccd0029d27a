#pragma once
// ExponentBarsPlot: counts per power of two, one bar per integer exponent e labelled 2^e
// on x, for the Block scales dock (blocks per block-scale exponent).
//
// Contract:
// - setBars(counts) replaces the bars (exponent -> count); the x range spans the
//   exponents given, with a bar's width to spare on both sides.
// - A click on a bar (press and release on the same spot) selects its exponent: it is
//   drawn highlighted and exponentClicked(e) is emitted. setSelectedExponent() does the
//   same without the signal; nullopt clears it.
// - Labels: setLabels(x, y). The mouse as in every plot: tooltip "2^e: n", double click
//   resets the view.
#include <QPoint>
#include <cstdint>
#include <map>
#include <optional>

#include "plots/InteractivePlot.h"

namespace ampscope::ui {

class ExponentBarsPlot : public InteractivePlot {
    Q_OBJECT
public:
    explicit ExponentBarsPlot(QWidget* parent = nullptr);

    void setBars(const std::map<int, int64_t>& counts);
    void setLabels(const QString& xLabel, const QString& yLabel);
    void setSelectedExponent(std::optional<int> exponent);
    std::optional<int> selectedExponent() const { return selected_; }
    void setPlaceholder(const QString& text);
    QString placeholderText() const;
    // Plots side by side read on one scale: x spans [lowExponent, highExponent] and y
    // reaches `highest`, whatever this plot's own bars (until setBars with no extent).
    void setSharedExtent(int lowExponent, int highExponent, int64_t highest);

    const std::map<int, int64_t>& bars() const { return counts_; }
    // The exponent of the bar under `pixel`, if any.
    std::optional<int> exponentAt(QPoint pixel) const;
    // The pixel at the middle of the bar of `exponent` (for tests that click it).
    QPoint barCentre(int exponent) const;

    QString tooltipText(QPoint pixel) const override;

public Q_SLOTS:
    void resetView() override;

Q_SIGNALS:
    void exponentClicked(int exponent);

protected:
    void leftClicked(QPoint pixel) override;

private:
    void updateSelection();

    QCPBars* bars_ = nullptr;
    QCPBars* selectedBar_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    std::map<int, int64_t> counts_;
    std::optional<int> selected_;
    std::optional<std::pair<int, int>> sharedExponents_;
    int64_t sharedHighest_ = 0;
};

}  // namespace ampscope::ui
