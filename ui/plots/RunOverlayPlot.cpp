#include "plots/RunOverlayPlot.h"

#include <algorithm>
#include <cmath>

namespace ampscope::ui {

namespace {

QColor runColour(std::size_t index) {
    static const QColor kColours[6] = {QColor(31, 119, 180), QColor(214, 39, 40),
                                       QColor(44, 160, 44),  QColor(255, 127, 14),
                                       QColor(148, 103, 189), QColor(23, 190, 207)};
    return kColours[index % 6];
}

}  // namespace

RunOverlayPlot::RunOverlayPlot(const QString& yLabel, const QString& emptyText, QWidget* parent)
    : TimeSeriesPlot(parent), emptyText_(emptyText) {
    yAxis->setLabel(yLabel);
    setPlaceholder(emptyText_);
}

void RunOverlayPlot::clearRuns() {
    removeAllSeries();
    runs_.clear();
    legends_.clear();
    lastStep_ = low_ = high_ = 0.0;
    any_ = false;
    setPlaceholder(emptyText_);
}

void RunOverlayPlot::addRun(const QString& legend, const std::vector<double>& steps,
                            const std::vector<double>& values) {
    SeriesGraph* s = addSeries(yAxis, legend, QPen(runColour(runs_.size()), 1.5));
    for (size_t i = 0; i < steps.size() && i < values.size(); ++i) {
        if (!std::isfinite(values[i])) continue;
        s->append(steps[i], values[i]);
        low_ = any_ ? std::min(low_, values[i]) : values[i];
        high_ = any_ ? std::max(high_, values[i]) : values[i];
        lastStep_ = std::max(lastStep_, steps[i]);
        any_ = true;
    }
    runs_.push_back(s);
    legends_.push_back(legend);
    setPlaceholder(any_ ? QString() : emptyText_);
    endOfBatch();
}

void RunOverlayPlot::applyAutoRanges() {
    setXRangeToData(lastStep_);
    yAxis->setRange(paddedRange(low_, high_, false));
}

QString RunOverlayPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    QString text;
    for (size_t r = 0; r < runs_.size(); ++r) {
        const DecimatedSeries& d = runs_[r]->series();
        if (d.empty()) continue;
        const std::size_t i = d.nearestIndex(step);
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) +
                tr("%1 · step %2: %3")
                    .arg(legends_[r])
                    .arg(static_cast<qint64>(d.x(i)))
                    .arg(formatValue(d.y(i)));
    }
    return text;
}

}  // namespace ampscope::ui
