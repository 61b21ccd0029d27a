#pragma once
// The tooltip every plot shows under the mouse: the plot's text for that point, at the
// cursor; none when the text is empty (outside the data).
#include <QMouseEvent>
#include <QString>
#include <QToolTip>
#include <QWidget>

namespace ampscope::ui {

inline void showPlotTooltip(QWidget* plot, const QMouseEvent* event, const QString& text) {
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot);
}

}  // namespace ampscope::ui
