#pragma once
// ReportOverlayPlot: a per-step plot a report of several runs fills itself, one line per
// run in the run's colour and by its name (the quantities the run set keeps but no dock
// overlays: the flushed fraction per probe step, the validation accuracy per epoch).
//
// Contract:
// - addLine(name, colour, points) adds a line (and its legend entry); points with a
//   non-finite y are left out. fit() spans x over every line's steps and y over their
//   values (from 0 on a linear axis; on a log10 axis, setLogarithmic(true), over the
//   positive values only).
#include <QColor>
#include <QString>
#include <utility>
#include <vector>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class ReportOverlayPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    ReportOverlayPlot(const QString& xLabel, const QString& yLabel, QWidget* parent = nullptr);

    void addLine(const QString& name, const QColor& colour, const std::vector<std::pair<double, double>>& points,
                 bool markers);
    void setLogarithmic(bool logarithmic);
    void fit();
    bool isEmpty() const { return points_ == 0; }

    QString hoverText(double step, QPoint pixel) const override;

protected:
    void applyAutoRanges() override { fit(); }

private:
    double lastX_ = 0.0, lowY_ = 0.0, highY_ = 0.0, lowPositiveY_ = 0.0;
    std::size_t points_ = 0;
    bool logarithmic_ = false;
};

}  // namespace ampscope::ui
