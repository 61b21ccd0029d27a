#pragma once
// The legend of the window's plots: out of the plot area, in a row of the plot's layout
// of its own (inside, it would hide data), entries side by side, `wrap` to a row, in a
// slightly smaller font and without a frame.
class QCustomPlot;

namespace ampscope::ui {

// Inserts the row at `layoutRow` of the plot's layout and moves the legend there, made
// visible; the row takes only the height the legend needs. `topMargin` in pixels.
void placeLegendInRow(QCustomPlot& plot, int layoutRow, int wrap, int topMargin);

}  // namespace ampscope::ui
