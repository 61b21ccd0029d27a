#pragma once
// BlockScalesView: the "Block scales" dock. For one rounding point of a block format
// (MXFP8, MXFP4, NVFP4) and one probe step: how many blocks got each scale exponent
// (bars at 2^e), and how many elements were crushed by an outlier (zeroed while the
// largest element of their block survived).
//
// Contract:
// - A RunObserver: "format_quant" records, kept in a FormatQuantHistory.
// - The bars are exactly the record's block_scale_exponents at the chosen step (a slider
//   over the point's kept probe steps; it follows new steps while at the last one). The
//   summary line gives blocks, crushed_by_outlier (and its fraction of the elements) and,
//   for NVFP4, the blocks whose e4m3 scale rounded to 0.
// - The chosen block scale: the exponent of the bar clicked, or else the most common one.
//   blockScaleChosen(e, element) is emitted whenever it (or the element format) changes,
//   for the Format explorer's "under the current block scale".
// - A per-tensor point (fp8) has no block scales: the plot says so.
#include <QWidget>
#include <optional>

#include "RunObserver.h"
#include "views/FormatQuantHistory.h"

class QComboBox;
class QLabel;
class QSlider;

namespace ampscope::ui {

class ExponentBarsPlot;

class BlockScalesView : public QWidget, public RunObserver {
    Q_OBJECT
public:
    explicit BlockScalesView(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void takeRecord(const nlohmann::json& record) override;
    void endOfBatch() override;

    bool setPoint(const QString& label);
    QString point() const;
    void setStepIndex(int index);
    int64_t shownStep() const { return shownStep_; }
    // The chosen scale exponent and the element format it applies to ("e4m3", "e2m1").
    std::optional<int> chosenExponent() const { return chosen_; }
    QString elementFormat() const { return element_; }

    ExponentBarsPlot* plot() const { return plot_; }
    QComboBox* pointChooser() const { return pointBox_; }
    QSlider* stepSlider() const { return slider_; }
    QLabel* summary() const { return summaryLabel_; }

Q_SIGNALS:
    void blockScaleChosen(int exponent, const QString& elementFormat);

private:
    void updateChooser();
    void updateSlider();
    void redraw();
    void choose(std::optional<int> exponent, bool clicked);

    ExponentBarsPlot* plot_ = nullptr;
    QComboBox* pointBox_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    QLabel* summaryLabel_ = nullptr;
    FormatQuantHistory history_;
    int64_t shownStep_ = -1;
    std::optional<int> chosen_;
    bool chosenByClick_ = false;
    QString element_;
    QString lastEmittedElement_;
    bool followLatest_ = true;
    bool dirty_ = false;
    bool updating_ = false;
};

}  // namespace ampscope::ui
