#include "plots/UnderflowFractionPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampscope::ui {

namespace {

// Ten colours that stay apart on screen and in print (matplotlib's tab10).
QColor lineColour(int index) {
    static const QColor kColours[10] = {
        QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
        QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
        QColor(188, 189, 34),  QColor(23, 190, 207)};
    return kColours[index % 10];
}

}  // namespace

UnderflowFractionPlot::UnderflowFractionPlot(QWidget* parent) : TimeSeriesPlot(parent) {
    setObjectName(QStringLiteral("underflow-fraction"));
    setFractionName(tr("flushed to 0"));
    setEmptyText(tr("No run yet"));
}

void UnderflowFractionPlot::addLine(const QString& name, const QPen& pen, QCPScatterStyle::ScatterShape marker) {
    SeriesGraph* line = addSeries(yAxis, name, pen);
    line->setSparseMarker(QCPScatterStyle(marker, 4));
    lines_.push_back(line);
    lineNames_.push_back(name);
}

void UnderflowFractionPlot::setLayers(const QStringList& layers) {
    removeAllSeries();
    lines_.clear();
    lineNames_.clear();
    layers_ = layers;
    shown_.assign(static_cast<std::size_t>(layers.size()), true);
    for (int i = 0; i < layers.size(); ++i) addLine(layers[i], QPen(lineColour(i), 1.6), QCPScatterStyle::ssCircle);
}

void UnderflowFractionPlot::setRunLines(const QStringList& runNames, const std::vector<QColor>& runColours,
                                        const QStringList& layers) {
    // A run's lines share its colour, as everywhere in the window; a layer keeps its dash
    // pattern and marker across the runs, so "the same layer in the other run" reads at once.
    static const Qt::PenStyle kDashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                           Qt::DashDotDotLine};
    static const QCPScatterStyle::ScatterShape kMarkers[] = {
        QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
        QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross, QCPScatterStyle::ssPlus};
    removeAllSeries();
    lines_.clear();
    lineNames_.clear();
    layers_ = layers;
    shown_.assign(static_cast<std::size_t>(layers.size()), true);
    for (int run = 0; run < runNames.size(); ++run)
        for (int i = 0; i < layers.size(); ++i) {
            QPen pen(runColours[static_cast<std::size_t>(run)], 1.6);
            pen.setStyle(kDashes[i % 5]);
            addLine(QStringLiteral("%1: %2").arg(runNames[run], layers[i]), pen, kMarkers[i % 6]);
        }
}

void UnderflowFractionPlot::clearPoints() {
    clearAllSeries();
}

void UnderflowFractionPlot::append(int lineIndex, double step, double fraction) {
    if (lineIndex < 0 || lineIndex >= static_cast<int>(lines_.size())) return;
    lines_[static_cast<std::size_t>(lineIndex)]->append(step, fraction);
    setPlaceholder(QString());
}

void UnderflowFractionPlot::setLayerShown(int layerIndex, bool shown) {
    if (layerIndex < 0 || layerIndex >= static_cast<int>(shown_.size())) return;
    shown_[static_cast<std::size_t>(layerIndex)] = shown;
    for (std::size_t line = 0; line < lines_.size(); ++line) {
        if (layerOfLine(line) != layerIndex) continue;
        QCPGraph* graph = lines_[line]->graph();
        graph->setVisible(shown);
        if (shown)
            graph->addToLegend();
        else
            graph->removeFromLegend();
    }
}

bool UnderflowFractionPlot::isLayerShown(int layerIndex) const {
    return layerIndex >= 0 && layerIndex < static_cast<int>(shown_.size()) &&
           shown_[static_cast<std::size_t>(layerIndex)];
}

QCPGraph* UnderflowFractionPlot::graphOf(int layerIndex) const {
    return layerIndex >= 0 && layerIndex < layers_.size() ? lineGraph(layerIndex) : nullptr;
}

QCPGraph* UnderflowFractionPlot::lineGraph(int lineIndex) const {
    if (lineIndex < 0 || lineIndex >= static_cast<int>(lines_.size())) return nullptr;
    return lines_[static_cast<std::size_t>(lineIndex)]->graph();
}

void UnderflowFractionPlot::setLogarithmic(bool logarithmic) {
    logarithmic_ = logarithmic;
    setAxisLogarithmic(yAxis, logarithmic);
    yAxis->setLabel(logarithmic ? tr("fraction %1 (log axis)").arg(fractionName_)
                                : tr("fraction %1").arg(fractionName_));
}

void UnderflowFractionPlot::setFractionName(const QString& name) {
    fractionName_ = name;
    setLogarithmic(logarithmic_);
}

void UnderflowFractionPlot::setEmptyText(const QString& text) {
    setPlaceholder(text);
}

void UnderflowFractionPlot::applyAutoRanges() {
    double lastStep = 0.0;
    double high = 0.0;
    double lowPositive = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < lines_.size(); ++i) {
        const DecimatedSeries& s = lines_[i]->series();
        lastStep = std::max(lastStep, s.lastX());
        if (!shown_[static_cast<std::size_t>(layerOfLine(i))] || !s.hasFiniteY()) continue;
        high = std::max(high, s.maxY());
        if (s.hasPositiveY()) lowPositive = std::min(lowPositive, s.minPositiveY());
    }
    setXRangeToData(lastStep);
    if (logarithmic_) {
        if (std::isfinite(lowPositive)) yAxis->setRange(paddedRange(lowPositive, high, true));
    } else {
        // Fractions start at 0; a fraction near 1 still shows its top.
        yAxis->setRange(0.0, high > 0.0 ? std::min(1.05, high * 1.1) : 1.0);
    }
}

QString UnderflowFractionPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    QString text;
    double shownStep = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < lines_.size(); ++i) {
        if (!shown_[static_cast<std::size_t>(layerOfLine(i))]) continue;
        const DecimatedSeries& s = lines_[i]->series();
        if (s.empty()) continue;
        const std::size_t at = s.nearestIndex(step);
        if (std::isnan(shownStep)) {
            shownStep = s.x(at);
            text =
                tr("step %1, fraction %2").arg(static_cast<qint64>(shownStep)).arg(fractionName_);
        }
        if (s.x(at) != shownStep) continue;
        const double value = s.y(at);
        text += QStringLiteral("\n%1: %2")
                    .arg(lineNames_[i],
                         std::isnan(value) ? QStringLiteral("0") : formatValue(value));
    }
    return text;
}

}  // namespace ampscope::ui
