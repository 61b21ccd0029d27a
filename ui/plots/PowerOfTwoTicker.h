#pragma once
// Ticks at integer exponents of a log2 axis, labelled 2^k (PowerOfTwoText.h), in
// steps of 1, 2, 4, 8, ... exponents: about eight labels at any zoom.
#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

class PowerOfTwoTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
    double getTickStep(const QCPRange& range) override;
};

}  // namespace ampscope::ui
