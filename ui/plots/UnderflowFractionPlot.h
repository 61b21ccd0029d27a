#pragma once
// UnderflowFractionPlot: lines of the fraction of a tensor's elements that fp16 flushes
// to 0 / holds as subnormals / overflows, over the probe steps: one per layer of one run,
// or, with runs compared, one per run and layer. The Underflow dock feeds it (the
// fractions are derived from the run set's counts there); it is not registered with the
// window itself.
//
// Contract:
// - setLayers() replaces the lines with one per layer (fixed colours in model order);
//   setRunLines() with one per run and layer: the run's colour (RunPalette), a dash
//   pattern and marker per layer, named "run: layer". append() adds a point to a line;
//   setLayerShown() hides or shows every line of a layer and its legend entries.
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
    // Lines for runs side by side: runs x layers, line index = run * layers + layer.
    void setRunLines(const QStringList& runNames, const std::vector<QColor>& runColours, const QStringList& layers);
    int lineCount() const { return static_cast<int>(lines_.size()); }
    void clearPoints();
    void append(int lineIndex, double step, double fraction);
    void setLayerShown(int layerIndex, bool shown);
    bool isLayerShown(int layerIndex) const;
    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return logarithmic_; }
    void setFractionName(const QString& name);  // "flushed to 0", for the y label and tips
    void setEmptyText(const QString& text);

    // The line of a layer (of the first run when runs are compared).
    QCPGraph* graphOf(int layerIndex) const;
    QCPGraph* lineGraph(int lineIndex) const;
    QString hoverText(double step, QPoint pixel) const override;

protected:
    void applyAutoRanges() override;

private:
    void addLine(const QString& name, const QPen& pen, QCPScatterStyle::ScatterShape marker);
    int layerOfLine(std::size_t line) const { return static_cast<int>(line % static_cast<std::size_t>(std::max<qsizetype>(1, layers_.size()))); }

    QStringList layers_;
    std::vector<SeriesGraph*> lines_;
    std::vector<QString> lineNames_;
    std::vector<bool> shown_;  // per layer
    QString fractionName_;
    bool logarithmic_ = false;
};

}  // namespace ampscope::ui
