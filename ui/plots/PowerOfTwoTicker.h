#pragma once
// Ticks at integer exponents of a log2 axis, labelled 2^k (PowerOfTwoText.h), in steps
// of leastStep, 2 leastStep, 4 leastStep, ... exponents: the least of them that keeps
// the labels to mostTicks at any zoom. The default, steps of 1, 2, 4, ... and about
// eight labels, suits a plot of ordinary width; a narrow one (the histogram slice)
// asks for fewer labels and coarser steps.
#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

class PowerOfTwoTicker : public QCPAxisTicker {
public:
    explicit PowerOfTwoTicker(double leastStep = 1.0, double mostTicks = 9.0)
        : leastStep_(leastStep), mostTicks_(mostTicks) {}

protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
    double getTickStep(const QCPRange& range) override;

private:
    double leastStep_;
    double mostTicks_;
};

}  // namespace ampscope::ui
