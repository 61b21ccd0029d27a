#pragma once
// UnderflowFractionPlot: one line per layer of the fraction of a tensor's elements that
// fp16 flushes to 0 / holds as subnormals / overflows, over the probe steps. The
// Underflow dock feeds it; it is not registered with the window itself.
//
// Contract:
// - setLayers() replaces the lines (one per layer, fixed colours in model order);
//   append() adds a point; setLayerShown() hides or shows a layer's line and legend entry.
// - setLogarithmic(true) puts y on a log10 axis; a fraction of 0 has no place there and
//   is given as NaN by the caller (a gap in the line), and the tooltip reads NaN as 0.
// - Otherwise a TimeSeriesPlot: labelled axes, legend, zoom/pan, double click resets,
//   tooltip with each shown layer's value at the nearest probe step.
#include <QStringList>
#include <vector>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class UnderflowFractionPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    explicit UnderflowFractionPlot(QWidget* parent = nullptr);


    void setLayers(const QStringList& layers);
    void clearPoints();
    void append(int layerIndex, double step, double fraction);
    void setLayerShown(int layerIndex, bool shown);
    bool isLayerShown(int layerIndex) const;
    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return logarithmic_; }
    void setFractionName(const QString& name);  // "flushed to 0", for the y label and tips
    void setEmptyText(const QString& text);

    QCPGraph* graphOf(int layerIndex) const;
    QString hoverText(double step, QPoint pixel) const override;

protected:
    void applyAutoRanges() override;

private:
    QStringList layers_;
    std::vector<SeriesGraph*> lines_;
    std::vector<bool> shown_;
    QString fractionName_;
    bool logarithmic_ = false;
};

}  // namespace ampscope::ui
