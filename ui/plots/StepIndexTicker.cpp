#include "plots/StepIndexTicker.h"

#include <cmath>

namespace ampscope::ui {

StepIndexTicker::StepIndexTicker(LabelForColumn labelForColumn)
    : labelForColumn_(std::move(labelForColumn)) {
    setTickCount(6);
}

QString StepIndexTicker::getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                                      int precision) {
    (void)locale;
    (void)formatChar;
    (void)precision;
    const double index = std::round(tick);
    if (std::abs(index - tick) > 1e-6) return QString();  // between columns: no label
    return labelForColumn_(static_cast<int>(index));
}

}  // namespace ampscope::ui
