#pragma once
// BlockScalesView: the "Block scales" dock. For one rounding point of a block format
// (MXFP8, MXFP4, NVFP4) and one probe step: how many blocks got each scale exponent
// (bars at 2^e), and how many elements were crushed by an outlier (zeroed while the
// largest element of their block survived). The focused run (A) against the run compared
// with it (B, RunSet::partner): bars side by side on one scale, so MXFP4's power-of-two
// scales and NVFP4's e4m3 scales compare at a glance.
//
// Contract:
// - Reads the run set: A's and B's FormatQuantHistory ("format_quant" records).
// - The bars are exactly the record's block_scale_exponents at the chosen step (a slider
//   over A's kept probe steps of the point, following new steps while at the last one;
//   B shows its latest kept step at or before it). Each side's summary gives blocks,
//   crushed_by_outlier (and its fraction of the elements) and, for NVFP4, the blocks
//   whose e4m3 scale rounded to 0.
// - The chosen block scale (A's): the exponent of the bar clicked, or else the most
//   common one. blockScaleChosen(e, element) is emitted whenever it (or the element
//   format) changes, for the Format explorer's "under the current block scale".
// - A per-tensor point (fp8) has no block scales: the plot says so.
#include <QString>
#include <cstdint>
#include <optional>

#include "runset/FormatQuantHistory.h"
#include "views/RunPairView.h"

class QComboBox;
class QLabel;
class QSlider;

namespace ampscope::ui {

class ExponentBarsPlot;
class RunModel;
class RunSet;

class BlockScalesView : public RunPairView {
    Q_OBJECT
public:
    explicit BlockScalesView(RunSet* set, QWidget* parent = nullptr);

    bool setPoint(const QString& label);
    QString point() const;
    void setStepIndex(int index);
    int64_t shownStep() const { return shownStep_; }
    // The chosen scale exponent and the element format it applies to ("e4m3", "e2m1").
    std::optional<int> chosenExponent() const { return chosen_; }
    QString elementFormat() const { return element_; }

    // A's plot and summary, and B's (hidden while no run is compared with A).
    ExponentBarsPlot* plot() const { return sides_[kA].plot; }
    ExponentBarsPlot* partnerPlot() const { return sides_[kB].plot; }
    QLabel* summary() const { return sides_[kA].summary; }
    QLabel* partnerSummary() const { return sides_[kB].summary; }
    QComboBox* pointChooser() const { return pointBox_; }
    QSlider* stepSlider() const { return slider_; }

Q_SIGNALS:
    void blockScaleChosen(int exponent, const QString& elementFormat);

private:
    // What a side draws.
    struct Side {
        ExponentBarsPlot* plot = nullptr;
        QLabel* summary = nullptr;
    };

    void showRuns() override;
    void shownRunChanged() override;
    const FormatQuantHistory::Series* seriesOf(int side) const;
    void updateChooser();
    void updateSlider();
    void redraw();
    // Draws a side at A's step; returns the measurement drawn (null: none).
    const FormatQuantMeasurement* draw(int side);
    void choose(std::optional<int> exponent, bool clicked);

    Side sides_[2];
    QComboBox* pointBox_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    int64_t shownStep_ = -1;
    std::optional<int> chosen_;
    bool chosenByClick_ = false;
    QString element_;
    QString lastEmittedElement_;
    bool followLatest_ = true;
    bool updating_ = false;
};

}  // namespace ampscope::ui
