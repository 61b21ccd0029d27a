#include "plots/PowerOfTwoText.h"

#include <cmath>

namespace ampscope::ui {

namespace {

QString superscriptInteger(long long value) {
    static const QChar kDigits[10] = {QChar(0x2070), QChar(0x00B9), QChar(0x00B2), QChar(0x00B3),
                                      QChar(0x2074), QChar(0x2075), QChar(0x2076), QChar(0x2077),
                                      QChar(0x2078), QChar(0x2079)};
    QString text;
    for (QChar c : QString::number(value))
        text += c == QLatin1Char('-') ? QChar(0x207B) : kDigits[c.digitValue()];
    return text;
}

}  // namespace

QString powerOfTwoText(double exponent) {
    if (!std::isfinite(exponent)) return QStringLiteral("2^%1").arg(exponent);
    const double rounded = std::round(exponent);
    if (std::abs(exponent - rounded) < 1e-9)
        return QStringLiteral("2") + superscriptInteger(static_cast<long long>(rounded));
    return QStringLiteral("2^%1").arg(exponent, 0, 'f', 2);
}

}  // namespace ampscope::ui
