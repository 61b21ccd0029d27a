#pragma once
// ExponentOverlayPlot: two or more exponent histograms over one log2|x| axis, as step
// outlines, for comparing the same tensor in two precisions (the precision map: an op's
// output in the run's mode against the reference). Bin k covers [2^k, 2^(k+1)); y is the
// element count on a log axis. Zeros, NaN and Inf have no exponent: the legend counts
// the zeros and the non-finite elements of each.
//
// Contract: setHistograms() replaces the curves (name, colour, histogram each) and the
// title; the x range spans the non-empty bins of all of them; clear(why) shows a note.
#include <QColor>
#include <QString>
#include <vector>

#include "plots/InteractivePlot.h"
#include "probes/ExponentHistogram.h"

namespace ampscope::ui {

class ExponentOverlayPlot : public InteractivePlot {
    Q_OBJECT
public:
    struct Curve {
        QString name;
        QColor color;
        ExponentHistogram histogram;
    };

    explicit ExponentOverlayPlot(QWidget* parent = nullptr);

    void setHistograms(const QString& title, const std::vector<Curve>& curves);
    void clear(const QString& why);
    QString titleText() const;
    QString tooltipText(QPoint pixel) const override;

public Q_SLOTS:
    void resetView() override;

private:
    std::vector<Curve> curves_;
    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    int lowBin_ = 0, highBin_ = 0;
};

}  // namespace ampscope::ui
