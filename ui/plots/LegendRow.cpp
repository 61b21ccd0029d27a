#include "plots/LegendRow.h"

#include <algorithm>

#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

void placeLegendInRow(QCustomPlot& plot, int layoutRow, int wrap, int topMargin) {
    QCPLegend* legend = plot.legend;
    legend->setVisible(true);
    QFont legendFont = plot.font();
    legendFont.setPointSizeF(std::max(7.0, legendFont.pointSizeF() * 0.9));
    legend->setFont(legendFont);
    legend->setBrush(Qt::NoBrush);
    legend->setBorderPen(Qt::NoPen);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(wrap);
    legend->setColumnSpacing(12);
    legend->setMargins(QMargins(4, topMargin, 4, 0));
    // A plot area is no wider than the narrowest maximum in its column, and a legend with
    // no entries (a run that recorded none of the plot's quantities) has its margins for a
    // maximum: the plot area shrank to a sliver. A maximum width set overrides that hint
    // (wider than any screen; with the margins added still below QWIDGETSIZE_MAX, which
    // would mean "unset" and bring the hint back). The height stays the entries' own.
    legend->setMaximumSize(QWIDGETSIZE_MAX / 2, QWIDGETSIZE_MAX);
    plot.axisRect()->insetLayout()->take(legend);
    plot.plotLayout()->insertRow(layoutRow);
    plot.plotLayout()->addElement(layoutRow, 0, legend);
    // A tiny stretch: the plot area below gets all the height the legend does not need.
    plot.plotLayout()->setRowStretchFactor(layoutRow, 0.001);
}

}  // namespace ampscope::ui
