#include "plots/PowerOfTwoTicker.h"

#include "plots/PowerOfTwoText.h"

namespace ampscope::ui {

QString PowerOfTwoTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return powerOfTwoText(tick); }

double PowerOfTwoTicker::getTickStep(const QCPRange& range) {
    double step = leastStep_;
    while (range.size() / step > mostTicks_) step *= 2.0;
    return step;
}

}  // namespace ampscope::ui
