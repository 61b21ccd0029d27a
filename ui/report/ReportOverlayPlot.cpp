#include "report/ReportOverlayPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampscope::ui {

ReportOverlayPlot::ReportOverlayPlot(const QString& xLabel, const QString& yLabel, QWidget* parent)
    : TimeSeriesPlot(parent) {
    xAxis->setLabel(xLabel);
    yAxis->setLabel(yLabel);
    legend->setVisible(true);
    setPlaceholder(QString());
}

void ReportOverlayPlot::addLine(const QString& name, const QColor& colour,
                                const std::vector<std::pair<double, double>>& points, bool markers) {
    SeriesGraph* line = addSeries(yAxis, name, QPen(colour, 2.0));
    if (markers)
        line->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 5));
    for (const auto& [x, y] : points) {
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        line->append(x, y);
        if (points_ == 0) lowY_ = highY_ = y;
        lowY_ = std::min(lowY_, y);
        highY_ = std::max(highY_, y);
        if (y > 0.0 && (lowPositiveY_ == 0.0 || y < lowPositiveY_)) lowPositiveY_ = y;
        lastX_ = std::max(lastX_, x);
        ++points_;
    }
    line->refresh();
}

void ReportOverlayPlot::setLogarithmic(bool logarithmic) {
    logarithmic_ = logarithmic;
    setAxisLogarithmic(yAxis, logarithmic);
}

void ReportOverlayPlot::fit() {
    setXRangeToData(lastX_);
    if (points_ == 0) return;
    if (logarithmic_ && lowPositiveY_ > 0.0)
        yAxis->setRange(paddedRange(lowPositiveY_, highY_, true));
    else if (highY_ > 0.0)
        yAxis->setRange(paddedRange(std::min(0.0, lowY_), highY_, false));
    else
        yAxis->setRange(0.0, 1.0);  // every value 0: the axis starts at 0 all the same
}

QString ReportOverlayPlot::hoverText(double, QPoint) const {
    return {};  // a report is printed, never hovered
}

}  // namespace ampscope::ui
