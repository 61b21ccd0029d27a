#pragma once
// "2⁻²⁴": a power of two with a superscript exponent, the way the probe views label
// log2 axes and limits. A non-integer exponent is written with two decimals (2^13.29).
#include <QString>

namespace ampscope::ui {

QString powerOfTwoText(double exponent);

}  // namespace ampscope::ui
