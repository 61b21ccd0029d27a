#pragma once
// A font's size whichever way it was given: in points, or in pixels where it was set so.
#include <QFont>
#include <algorithm>

namespace ampscope::ui {

inline double fontSize(const QFont& font) {
    return font.pointSizeF() > 0 ? font.pointSizeF() : font.pixelSize();
}

inline QFont withFontSize(QFont font, double size) {
    if (font.pointSizeF() > 0)
        font.setPointSizeF(size);
    else
        font.setPixelSize(std::max(1, qRound(size)));
    return font;
}

}  // namespace ampscope::ui
