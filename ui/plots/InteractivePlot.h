#pragma once
// InteractivePlot: the mouse behaviour every plot in the window shares, written once.
//
// Contract:
// - Both axes zoom (wheel) and pan (drag) from the start.
// - Hovering with no button held shows a tooltip at the cursor with tooltipText() for
//   that pixel; an empty text (outside the data) hides it.
// - A left double click calls resetView(): the plot goes back to the view it chooses
//   itself (the whole run, following new steps).
// - Leaving the plot hides the tooltip: Qt's tooltip does that itself (it hides on every
//   Leave event while it is shown), so there is no handler for it here.
// - A left click (released within kClickSlop pixels of where it was pressed; farther is
//   the end of a drag, which pans) calls leftClicked() with the pixel.
// A subclass writes tooltipText(), resetView() and, to take clicks, leftClicked(), and
// nothing else of the mouse.
#include <QString>

#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

class InteractivePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit InteractivePlot(QWidget* parent = nullptr);

    // The tooltip with the mouse at `pixel` (widget coordinates); empty: none.
    virtual QString tooltipText(QPoint pixel) const = 0;

public Q_SLOTS:
    virtual void resetView() = 0;

protected:
    static constexpr int kClickSlop = 3;  // pixels, Manhattan distance
    virtual void leftClicked(QPoint pixel) { Q_UNUSED(pixel); }

    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QPoint pressedAt_;
};

}  // namespace ampscope::ui
