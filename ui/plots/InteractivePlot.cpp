#include "plots/InteractivePlot.h"

#include <QMouseEvent>
#include <QToolTip>

namespace ampscope::ui {

InteractivePlot::InteractivePlot(QWidget* parent) : QCustomPlot(parent) {
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    // Move events without a button held: the tooltip follows the mouse.
    setMouseTracking(true);
}

void InteractivePlot::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton) return;  // a drag pans; no tooltip meanwhile
    const QString text = tooltipText(event->position().toPoint());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void InteractivePlot::mouseDoubleClickEvent(QMouseEvent* event) {
    QCustomPlot::mouseDoubleClickEvent(event);
    if (event->button() == Qt::LeftButton) resetView();
}

void InteractivePlot::mousePressEvent(QMouseEvent* event) {
    pressedAt_ = event->position().toPoint();
    QCustomPlot::mousePressEvent(event);
}

void InteractivePlot::mouseReleaseEvent(QMouseEvent* event) {
    QCustomPlot::mouseReleaseEvent(event);
    const QPoint at = event->position().toPoint();
    if (event->button() == Qt::LeftButton && (at - pressedAt_).manhattanLength() <= kClickSlop) leftClicked(at);
}

}  // namespace ampscope::ui
