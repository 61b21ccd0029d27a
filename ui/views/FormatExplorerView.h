#pragma once
// FormatExplorerView: the "Format explorer" dock, for teaching. Type a value (or click a
// bin of a layer's gradient histogram) and see, for fp32, fp16, bf16, e4m3, e5m2 and
// e2m1, the bits of its code and the value it rounds to, and the same under a block
// scale 2^e in a block format's element (e4m3 as in MXFP8, e2m1 as in MXFP4); below,
// the formats' ranges on one log2 axis with the chosen layer's gradient histogram.
//
// Contract:
// - The table's rows come from castToEveryFormat / castUnderBlockScale
//   (precision/formats/ValueInFormats.h): columns format, layout, code (hex), bits
//   (sign exponent mantissa), value (shortest decimal that reads back as that double),
//   relative error, what happened (exact, rounded, subnormal, flushed to 0, saturated).
// - Text that is not a number leaves the table as it was and says so in one line.
// - The block scale: a spin box for e in e8m0's [-127, 127] and a chooser of the element
//   format (e4m3, e5m2, e2m1); setBlockScale (the Block scales dock's chosen bar) sets
//   both. The block row names the scale used: 2^e and its e8m0 code.
// - Reads the run set: the focused run's latest histogram of each layer's unscaled weight
//   gradients (HistogramSeries, kind param_grad); the layer chooser picks the one drawn. A click on
//   bin k (2^k <= |x| < 2^(k+1)) sets the value to the bin's geometric middle 2^(k+1/2).
#include <QWidget>
#include <map>

#include "probes/ExponentHistogram.h"
#include "runset/RunChanges.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace ampscope::ui {

class FormatRangesPlot;
class RunSet;

class FormatExplorerView : public QWidget {
    Q_OBJECT
public:
    enum Column { kFormat, kLayout, kCode, kBits, kValue, kError, kOutcome, kColumns };

    explicit FormatExplorerView(RunSet* set, QWidget* parent = nullptr);

    // As if typed and confirmed.
    void setValueText(const QString& text);
    double value() const { return value_; }
    // The table's row of a format ("fp16"; the block row is "block"): -1 when none.
    int rowOf(const QString& format) const;
    QString cellText(const QString& format, Column column) const;
    QString errorText() const;

    void setLayer(const QString& layer);
    QString layer() const;

    QTableWidget* table() const { return table_; }
    QLineEdit* valueEdit() const { return valueEdit_; }
    QSpinBox* scaleSpin() const { return scaleSpin_; }
    QComboBox* elementChooser() const { return elementBox_; }
    QLabel* scaleLabel() const { return scaleLabel_; }
    FormatRangesPlot* rangesPlot() const { return ranges_; }

public Q_SLOTS:
    // The block scale 2^exponent in `element` ("e4m3" or "e2m1").
    void setBlockScale(int exponent, const QString& element);
    // The geometric middle of histogram bin k: 2^(k + 1/2).
    void exploreBin(int exponent);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void readValue();
    void fitTable();
    void updateTable();
    void updateHistogram();

    QLineEdit* valueEdit_ = nullptr;
    QLabel* errorLabel_ = nullptr;
    QTableWidget* table_ = nullptr;
    QSpinBox* scaleSpin_ = nullptr;
    QComboBox* elementBox_ = nullptr;
    QLabel* scaleLabel_ = nullptr;
    QComboBox* layerBox_ = nullptr;
    QLabel* histogramNote_ = nullptr;
    FormatRangesPlot* ranges_ = nullptr;
    QWidget* lower_ = nullptr;  // the layer row and the plot

    double value_ = 0.1;
    int tableFullHeight_ = 0;
    void onChanged(RunId run, RunChanges what);
    void updateLayers();

    RunSet* set_;
    bool updatingLayers_ = false;
};

}  // namespace ampscope::ui
