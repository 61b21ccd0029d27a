#include "plots/HeatmapPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plots/PowerOfTwoText.h"

namespace ampscope::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A viridis-like ramp: dark blue for few elements to yellow for many; readable in grey.
QCPColorGradient countGradient() {
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(68, 1, 84));
    gradient.setColorStopAt(0.25, QColor(59, 82, 139));
    gradient.setColorStopAt(0.5, QColor(33, 145, 140));
    gradient.setColorStopAt(0.75, QColor(94, 201, 98));
    gradient.setColorStopAt(1.0, QColor(253, 231, 37));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    gradient.setLevelCount(256);
    return gradient;
}

}  // namespace

HeatmapPlot::HeatmapPlot(QWidget* parent) : InteractivePlot(parent) {
    setObjectName(QStringLiteral("heatmap"));
    // QCustomPlot::axisRect() means "the first axis rect in the layout", which becomes the
    // named-rows strip once there is one: keep the map's own rect by pointer.
    mapRect_ = axisRect();
    setMinimumSize(300, 200);

    colorMap_ = new QCPColorMap(xAxis, yAxis);
    colorMap_->setInterpolate(false);
    colorScale_ = new QCPColorScale(this);
    plotLayout()->addElement(0, 1, colorScale_);
    colorScale_->setType(QCPAxis::atRight);
    colorScale_->setDataScaleType(QCPAxis::stLogarithmic);
    colorScale_->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    colorScale_->axis()->setNumberFormat(QStringLiteral("gb"));
    colorScale_->setBarWidth(12);
    colorMap_->setColorScale(colorScale_);
    colorMap_->setGradient(countGradient());
    // Keep the colour bar as tall as the plot area.
    marginGroup_ = new QCPMarginGroup(this);
    mapRect_->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup_);
    colorScale_->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup_);

    xAxis->setLabel(tr("training step"));
    // Plain step numbers, few enough to read at a dock's width.
    QSharedPointer<QCPAxisTicker> stepTicker(new QCPAxisTicker);
    stepTicker->setTickCount(5);
    xAxis->setTicker(stepTicker);

    auto onUserRange = [this] {
        if (!inAutoRange_) following_ = false;
    };
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onUserRange);
    connect(yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onUserRange);

    HeatmapLayout defaults;
    defaults.extraRows = {QStringLiteral("NaN"), QStringLiteral("+Inf"), QStringLiteral("-Inf")};
    configure(defaults);
}

void HeatmapPlot::configure(const HeatmapLayout& layout) {
    layout_ = layout;
    layout_.capacity = std::max(2, layout_.capacity);
    hasFocusY_ = false;
    clearOverlays();
    removeNamedRowsStrip();
    if (layout_.valueBins > 0 && !layout_.extraRows.isEmpty()) buildNamedRowsStrip();
    resizeGrid(wantedGridCells());
    yAxis->setLabel(layout_.yLabel);
    colorScale_->axis()->setLabel(layout_.colourLabel);
    updateYTicks();
    clear();
}

int HeatmapPlot::wantedGridCells() const {
    return std::clamp(mapRect_->width(), 64, 2 * layout_.capacity);
}

void HeatmapPlot::resizeGrid(int cells) {
    gridCells_ = cells;
    const int rows = std::max(1, mainRowCount());
    // Cell centres: rows at firstBinY + r + 0.5 (x: redrawGrid). QCPColorMap cannot draw a
    // single row (its cell height comes from the distance between rows), so one row is
    // held as two half-height rows with the same values.
    if (rows == 1) {
        colorMap_->data()->setSize(cells, 2);
        colorMap_->data()->setRange(QCPRange(0.0, cells - 1.0),
                                    QCPRange(layout_.firstBinY + 0.25, layout_.firstBinY + 0.75));
    } else {
        colorMap_->data()->setSize(cells, rows);
        colorMap_->data()->setRange(QCPRange(0.0, cells - 1.0), QCPRange(rowY(0), rowY(rows - 1)));
    }
    colorMap_->data()->fill(kNaN);
    if (namedRowsMap_) {
        const int named = static_cast<int>(layout_.extraRows.size());
        namedRowsMap_->data()->setSize(cells, named);
        namedRowsMap_->data()->setRange(QCPRange(0.0, cells - 1.0), QCPRange(0.0, named - 1.0));
        namedRowsMap_->data()->fill(kNaN);
    }
    gridDirty_ = true;
}

void HeatmapPlot::updateLayout() {
    InteractivePlot::updateLayout();
    // The map's width is known once laid out: a resize regrids before the map is drawn.
    if (wantedGridCells() != gridCells_) {
        resizeGrid(wantedGridCells());
        redrawGrid();
    }
}

void HeatmapPlot::buildNamedRowsStrip() {
    const int rows = static_cast<int>(layout_.extraRows.size());
    namedRowsRect_ = new QCPAxisRect(this, true);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, namedRowsRect_);
    // A fixed height per named row, whatever the widget's height.
    const int height = rows * 15;
    namedRowsRect_->setMinimumSize(0, height);
    namedRowsRect_->setMaximumSize(QWIDGETSIZE_MAX, height);
    namedRowsRect_->setAutoMargins(QCP::msLeft | QCP::msRight);
    namedRowsRect_->setMargins(QMargins(0, 8, 0, 4));
    namedRowsRect_->setMarginGroup(QCP::msLeft | QCP::msRight, marginGroup_);
    mapRect_->setMarginGroup(QCP::msLeft | QCP::msRight | QCP::msBottom, marginGroup_);
    colorScale_->setMarginGroup(QCP::msBottom, marginGroup_);

    QCPAxis* x = namedRowsRect_->axis(QCPAxis::atBottom);
    QCPAxis* y = namedRowsRect_->axis(QCPAxis::atLeft);
    namedRowsRect_->axis(QCPAxis::atTop)->setVisible(false);
    namedRowsRect_->axis(QCPAxis::atRight)->setVisible(false);
    x->setTickLabels(false);
    x->setTicker(xAxis->ticker());
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    y->setRange(-0.5, rows - 0.5);
    y->setRangeReversed(true);  // first name on top
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    for (int i = 0; i < rows; ++i) names->addTick(i, layout_.extraRows[i]);
    y->setTicker(names);
    y->setSubTicks(false);
    namedRowsRect_->setRangeDrag(Qt::Horizontal);
    namedRowsRect_->setRangeZoom(Qt::Horizontal);

    namedRowsMap_ = new QCPColorMap(x, y);
    namedRowsMap_->setInterpolate(false);
    namedRowsMap_->setColorScale(colorScale_);
    // One x axis in effect: the strip follows the map and the map follows the strip.
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), xAxis,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    x->setRange(xAxis->range());
}

void HeatmapPlot::removeNamedRowsStrip() {
    if (!namedRowsRect_) return;
    removePlottable(namedRowsMap_);
    namedRowsMap_ = nullptr;
    plotLayout()->remove(namedRowsRect_);  // deletes it and its axes
    plotLayout()->simplify();
    namedRowsRect_ = nullptr;
}

void HeatmapPlot::updateYTicks() {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    // Every 8th exponent (every 4th when there are few bins); named rows in the map itself
    // only when there is no strip for them.
    const int every = layout_.valueBins > 40 ? 8 : (layout_.valueBins > 16 ? 4 : 1);
    for (int row = 0; row < layout_.valueBins; ++row) {
        const double y = layout_.firstBinY + row;
        if (std::fmod(std::abs(y), every) == 0.0) ticker->addTick(y, powerOfTwoText(y));
    }
    if (!namedRowsRect_)
        for (int i = 0; i < layout_.extraRows.size(); ++i)
            ticker->addTick(rowY(layout_.valueBins + i), layout_.extraRows[i]);
    yAxis->setTicker(ticker);
}

void HeatmapPlot::clear() {
    columns_.clear();
    steps_.clear();
    gridDirty_ = false;
    minPositive_ = 0.0;
    maxValue_ = 0.0;
    colorMap_->data()->fill(kNaN);
    if (namedRowsMap_) namedRowsMap_->data()->fill(kNaN);
    following_ = true;
    resetView();
}

void HeatmapPlot::appendColumn(int64_t step, const std::vector<double>& counts) {
    if (static_cast<int>(counts.size()) != rowCount()) {
        qWarning("HeatmapPlot::appendColumn: %zu counts for %d rows; column ignored", counts.size(),
                 rowCount());
        return;
    }
    for (double v : counts) {
        if (v > 0.0 && (minPositive_ == 0.0 || v < minPositive_)) minPositive_ = v;
        if (v > maxValue_) maxValue_ = v;
    }
    columns_.push_back(counts);
    steps_.push_back(step);
    gridDirty_ = true;
}

void HeatmapPlot::setCell(int cell, int row, double value) {
    const double shown = value > 0.0 ? value : kNaN;  // NaN: transparent (no mass)
    if (row < mainRowCount()) {
        colorMap_->data()->setCell(cell, row, shown);
        if (mainRowCount() == 1) colorMap_->data()->setCell(cell, 1, shown);  // see configure
    } else {
        namedRowsMap_->data()->setCell(cell, row - layout_.valueBins, shown);
    }
}

void HeatmapPlot::setStepExtent(int64_t lastStep) {
    if (lastStep == stepExtent_) return;
    stepExtent_ = lastStep;
    gridDirty_ = true;
}

// Column c spans [edges[c], edges[c + 1]): half way to each neighbour, so that a column
// stands centred on its step and probes N steps apart make columns N steps wide.
std::vector<double> HeatmapPlot::columnEdges() const {
    const int n = columnCount();
    std::vector<double> edges;
    if (n == 0) return edges;
    edges.resize(static_cast<std::size_t>(n) + 1);
    for (int c = 1; c < n; ++c)
        edges[static_cast<std::size_t>(c)] = 0.5 * static_cast<double>(steps_[c - 1] + steps_[c]);
    const double loneWidth = std::max(1.0, 0.04 * static_cast<double>(std::max(stepExtent_, steps_.back())));
    const double firstHalf = n > 1 ? edges[1] - static_cast<double>(steps_.front()) : 0.5 * loneWidth;
    const double lastHalf =
        n > 1 ? static_cast<double>(steps_.back()) - edges[static_cast<std::size_t>(n) - 1] : 0.5 * loneWidth;
    edges.front() = static_cast<double>(steps_.front()) - firstHalf;
    edges.back() = static_cast<double>(steps_.back()) + lastHalf;
    return edges;
}

double HeatmapPlot::xUpper() const {
    double upper = static_cast<double>(std::max<int64_t>(stepExtent_, 1));
    const std::vector<double> edges = columnEdges();
    if (!edges.empty()) upper = std::max(upper, edges.back());
    return upper;
}

int HeatmapPlot::columnAt(double x) const {
    const std::vector<double> edges = columnEdges();
    if (edges.empty() || x < edges.front() || x >= edges.back()) return -1;
    const auto after = std::upper_bound(edges.begin(), edges.end(), x);
    return static_cast<int>(after - edges.begin()) - 1;
}

void HeatmapPlot::redrawGrid() {
    gridDirty_ = false;
    const int cells = gridCells();
    const double low = 0.0;
    const double high = xUpper();
    const double width = (high - low) / cells;
    // The cell centres run from low + width/2 to high - width/2: the grid fills the x range.
    colorMap_->data()->setKeyRange(QCPRange(low + 0.5 * width, high - 0.5 * width));
    if (namedRowsMap_) namedRowsMap_->data()->setKeyRange(QCPRange(low + 0.5 * width, high - 0.5 * width));
    const std::vector<double> edges = columnEdges();
    const int rows = rowCount();
    std::vector<double> merged(static_cast<std::size_t>(rows));
    int first = 0;  // the first column that may reach into this cell
    for (int cell = 0; cell < cells; ++cell) {
        const double x0 = low + cell * width, x1 = x0 + width;
        while (first < columnCount() && edges[static_cast<std::size_t>(first) + 1] <= x0) ++first;
        // Columns narrower than a cell share it: the cell shows the largest count of each
        // row among them, so a lone NaN or overflow column stays in view (the columns'
        // own thinning keeps the worse step the same way).
        std::fill(merged.begin(), merged.end(), kNaN);
        bool any = false;
        for (int c = first; c < columnCount() && edges[static_cast<std::size_t>(c)] < x1; ++c) {
            const std::vector<double>& column = columns_[static_cast<std::size_t>(c)];
            for (int r = 0; r < rows; ++r) {
                const double v = column[static_cast<std::size_t>(r)];
                double& m = merged[static_cast<std::size_t>(r)];
                if (!any || v > m) m = v;
            }
            any = true;
        }
        for (int r = 0; r < rows; ++r) setCell(cell, r, merged[static_cast<std::size_t>(r)]);
    }
}

double HeatmapPlot::value(int column, int row) const {
    if (column < 0 || column >= columnCount() || row < 0 || row >= rowCount()) return kNaN;
    return columns_[static_cast<std::size_t>(column)][static_cast<std::size_t>(row)];
}

void HeatmapPlot::applyXRange() {
    inAutoRange_ = true;
    xAxis->setRange(0.0, xUpper());
    if (hasFocusY_)
        yAxis->setRange(focusY_);
    else
        yAxis->setRange(layout_.firstBinY, layout_.firstBinY + mainRowCount());
    inAutoRange_ = false;
}

void HeatmapPlot::setFocusYRange(double low, double high) {
    hasFocusY_ = true;
    focusY_ = QCPRange(std::max(low, layout_.firstBinY), std::min(high, valueBinsTopY()));
}

void HeatmapPlot::setColourRange(double lowPositive, double high) {
    sharedLow_ = lowPositive;
    sharedHigh_ = high;
}

void HeatmapPlot::refresh() {
    if (gridDirty_) redrawGrid();
    if (sharedLow_ > 0.0 && sharedHigh_ > 0.0) {
        colorScale_->setDataRange(QCPRange(sharedLow_, std::max(sharedHigh_, sharedLow_ * 10.0)));
    } else if (maxValue_ > 0.0) {
        const double low = minPositive_ > 0.0 ? minPositive_ : maxValue_;
        colorScale_->setDataRange(QCPRange(low, std::max(maxValue_, low * 10.0)));
    }
    if (following_) applyXRange();
    replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::leftClicked(QPoint pixel) {
    const int column = columnAt(xAxis->pixelToCoord(pixel.x()));
    if (column >= 0) Q_EMIT columnClicked(stepOfColumn(column));
}

void HeatmapPlot::resetView() {
    following_ = true;
    applyXRange();
    replot(QCustomPlot::rpQueuedReplot);
}

QString HeatmapPlot::tooltipText(QPoint pixel) const {
    const int column = columnAt(xAxis->pixelToCoord(pixel.x()));
    int row = -1;
    if (mapRect_->rect().contains(pixel)) {
        row = static_cast<int>(std::floor(yAxis->pixelToCoord(pixel.y()) - layout_.firstBinY));
        if (row >= mainRowCount()) row = -1;
    } else if (namedRowsRect_ && namedRowsRect_->rect().contains(pixel)) {
        const double y = namedRowsRect_->axis(QCPAxis::atLeft)->pixelToCoord(pixel.y());
        row = layout_.valueBins + static_cast<int>(std::lround(y));
    }
    if (column < 0 || column >= columnCount() || row < 0 || row >= rowCount()) return QString();
    QString where;
    if (row < layout_.valueBins) {
        const double k = layout_.firstBinY + row;
        where =
            tr("%1 in [%2, %3)").arg(layout_.yLabel, QString::number(k), QString::number(k + 1));
    } else {
        where = layout_.extraRows[row - layout_.valueBins];
    }
    QString text = tr("step %1").arg(stepOfColumn(column));
    text += QStringLiteral("\n") + where;
    text += tr("\n%1: %2").arg(layout_.colourLabel, QString::number(value(column, row), 'g', 6));
    return text;
}

}  // namespace ampscope::ui
