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
    plot.axisRect()->insetLayout()->take(legend);
    plot.plotLayout()->insertRow(layoutRow);
    plot.plotLayout()->addElement(layoutRow, 0, legend);
    // A tiny stretch: the plot area below gets all the height the legend does not need.
    plot.plotLayout()->setRowStretchFactor(layoutRow, 0.001);
}

}  // namespace ampscope::ui
