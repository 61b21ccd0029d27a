#include "plots/CategoryHeatmapPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampscope::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Light where little is lost, dark red where much is (readable in grey too).
QCPColorGradient lossGradient(bool higherIsWorse) {
    QCPColorGradient gradient;
    gradient.clearColorStops();
    const QColor good(255, 247, 236), middle(252, 141, 89), bad(127, 0, 0);
    gradient.setColorStopAt(higherIsWorse ? 0.0 : 1.0, good);
    gradient.setColorStopAt(0.5, middle);
    gradient.setColorStopAt(higherIsWorse ? 1.0 : 0.0, bad);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    gradient.setLevelCount(256);
    return gradient;
}

}  // namespace

CategoryHeatmapPlot::CategoryHeatmapPlot(QWidget* parent) : InteractivePlot(parent) {
    setObjectName(QStringLiteral("category-heatmap"));
    setMinimumSize(300, 180);
    map_ = new QCPColorMap(xAxis, yAxis);
    map_->setInterpolate(false);
    colorScale_ = new QCPColorScale(this);
    plotLayout()->addElement(0, 1, colorScale_);
    colorScale_->setType(QCPAxis::atRight);
    colorScale_->setBarWidth(12);
    map_->setColorScale(colorScale_);
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    colorScale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    xAxis->grid()->setVisible(false);
    yAxis->grid()->setVisible(false);
    // Format names along the top: they read like a table's header.
    xAxis->setVisible(false);
    xAxis2->setVisible(true);
    xAxis2->setTickLength(0, 0);
    xAxis2->setSubTicks(false);
    yAxis->setTickLength(0, 0);
    yAxis->setSubTicks(false);
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), xAxis2,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    placeholder_ = new QCPItemText(this);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setColor(QColor(90, 90, 90));
    placeholder_->setLayer(QStringLiteral("overlay"));
    colorScale_->axis()->setLabel(tr("fraction"));
    map_->setGradient(lossGradient(higherIsWorse_));
    setCategories({}, {});
}

void CategoryHeatmapPlot::setCategories(const QStringList& rows, const QStringList& columns) {
    rows_ = rows;
    columns_ = columns;
    values_.assign(static_cast<std::size_t>(rows.size()),
                   std::vector<double>(static_cast<std::size_t>(columns.size()), kNaN));
    auto rowTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (int r = 0; r < rows.size(); ++r) rowTicker->addTick(rowY(r), rows[r]);
    yAxis->setTicker(rowTicker);
    auto columnTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (int c = 0; c < columns.size(); ++c) columnTicker->addTick(c, columns[c]);
    xAxis2->setTicker(columnTicker);
    xAxis->setTicker(columnTicker);
    redraw();
    resetView();
}

void CategoryHeatmapPlot::setValues(const std::vector<std::vector<double>>& values) {
    for (std::size_t r = 0; r < values_.size(); ++r)
        for (std::size_t c = 0; c < values_[r].size(); ++c)
            values_[r][c] = r < values.size() && c < values[r].size() ? values[r][c] : kNaN;
    redraw();
}

void CategoryHeatmapPlot::setColourRange(double low, double high, bool higherIsWorse) {
    high = high > low ? high : low + 1.0;  // a flat grid still needs a range
    if (low == low_ && high == high_ && higherIsWorse == higherIsWorse_) return;
    low_ = low;
    high_ = high;
    higherIsWorse_ = higherIsWorse;
    map_->setGradient(lossGradient(higherIsWorse));
    redraw();
}

void CategoryHeatmapPlot::setValueStyle(ValueStyle style, const QString& colourLabel) {
    if (style == style_ && colourLabel == colorScale_->axis()->label()) return;
    style_ = style;
    colorScale_->axis()->setLabel(colourLabel);
    // Scores span decades (a layer ten thousand times another's): a log scale, its ticks
    // powers of ten.
    const bool log = style == ValueStyle::Score;
    colorScale_->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    map_->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log) {
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(10);
        colorScale_->axis()->setTicker(ticker);
        colorScale_->axis()->setNumberFormat(QStringLiteral("eb"));
        colorScale_->axis()->setNumberPrecision(0);
    } else {
        colorScale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
        colorScale_->axis()->setNumberFormat(QStringLiteral("gb"));
        colorScale_->axis()->setNumberPrecision(6);
    }
    redraw();
}

void CategoryHeatmapPlot::setAxisLabels(const QString& rowsLabel, const QString& columnsLabel) {
    yAxis->setLabel(rowsLabel);
    xAxis2->setLabel(columnsLabel);
}

void CategoryHeatmapPlot::setPlaceholder(const QString& text) {
    placeholder_->setText(text);
    placeholder_->setVisible(!text.isEmpty());
    replot(rpQueuedReplot);
}

QString CategoryHeatmapPlot::placeholderText() const {
    return placeholder_->visible() ? placeholder_->text() : QString();
}

double CategoryHeatmapPlot::value(int row, int column) const {
    if (row < 0 || row >= rows_.size() || column < 0 || column >= columns_.size()) return kNaN;
    return values_[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)];
}

QString CategoryHeatmapPlot::cellText(double value) const {
    if (std::isnan(value)) return QStringLiteral("\u2013");
    if (style_ == ValueStyle::Score) {
        if (std::isinf(value)) return tr("non-finite");
        if (value == 0.0) return QStringLiteral("0");
        return QString::number(value, 'g', 2);
    }
    if (style_ == ValueStyle::Decibels) {
        if (std::isinf(value)) return value > 0 ? tr("exact") : tr("\u2212\u221E dB");
        return QStringLiteral("%1 dB").arg(value, 0, 'f', 1);
    }
    const double percent = 100.0 * value;
    if (value == 0.0) return QStringLiteral("0");
    // Small fractions matter (a few elements lost): keep two significant digits.
    if (percent < 0.1) return QStringLiteral("%1%").arg(percent, 0, 'g', 2);
    return QStringLiteral("%1%").arg(percent, 0, 'f', percent < 10.0 ? 2 : 1);
}

QString CategoryHeatmapPlot::drawnText(int row, int column) const {
    const std::size_t index = static_cast<std::size_t>(row * columns_.size() + column);
    return index < cellLabels_.size() ? cellLabels_[index]->text() : QString();
}

void CategoryHeatmapPlot::redraw() {
    const int nRows = static_cast<int>(rows_.size());
    const int nColumns = static_cast<int>(columns_.size());
    map_->data()->setSize(std::max(1, nColumns), std::max(1, nRows));
    map_->data()->setRange(QCPRange(0, std::max(0, nColumns - 1)), QCPRange(0, std::max(0, nRows - 1)));
    map_->data()->fill(kNaN);
    for (QCPItemText* label : cellLabels_) removeItem(label);
    cellLabels_.clear();
    for (QCPItemRect* mark : zeroMarks_) removeItem(mark);
    zeroMarks_.clear();
    const bool score = style_ == ValueStyle::Score;
    QCPColorGradient gradient = lossGradient(higherIsWorse_);  // color() is not const
    const QCPRange range(low_, high_);
    for (int r = 0; r < nRows; ++r)
        for (int c = 0; c < nColumns; ++c) {
            const double v = value(r, c);
            // +Inf SNR: the format held the tensor exactly, the best end of the scale.
            double coloured = std::isinf(v) ? (v > 0 ? (higherIsWorse_ ? low_ : high_)
                                                     : (higherIsWorse_ ? high_ : low_))
                                            : v;
            if (score && std::isinf(v)) coloured = high_;  // not finite: the worst there is
            if (score && v == 0.0) {
                // Exactly 0 is off the log scale: its own mark, not the scale's lightest colour.
                coloured = kNaN;
                auto* mark = new QCPItemRect(this);
                mark->topLeft->setCoords(c - 0.5, rowY(r) + 0.5);
                mark->bottomRight->setCoords(c + 0.5, rowY(r) - 0.5);
                mark->setPen(Qt::NoPen);
                mark->setBrush(QBrush(QColor(150, 150, 150), Qt::BDiagPattern));
                mark->setClipToAxisRect(true);
                zeroMarks_.push_back(mark);
            }
            map_->data()->setCell(c, nRows - 1 - r, coloured);
            auto* label = new QCPItemText(this);
            label->position->setCoords(c, rowY(r));
            label->setPositionAlignment(Qt::AlignCenter);
            label->setText(cellText(v));
            label->setClipToAxisRect(true);
            const QColor fill = std::isnan(coloured)
                                    ? QColor(Qt::white)
                                    : QColor::fromRgb(gradient.color(std::clamp(coloured, low_, high_), range));
            label->setColor(fill.lightness() < 128 ? QColor(Qt::white) : QColor(Qt::black));
            cellLabels_.push_back(label);
        }
    map_->setDataRange(range);
    replot(rpQueuedReplot);
}

QString CategoryHeatmapPlot::tooltipText(QPoint pixel) const {
    if (!axisRect()->rect().contains(pixel) || rows_.isEmpty() || columns_.isEmpty()) return {};
    const int column = static_cast<int>(std::lround(xAxis->pixelToCoord(pixel.x())));
    const int row = static_cast<int>(rows_.size()) - 1 -
                    static_cast<int>(std::lround(yAxis->pixelToCoord(pixel.y())));
    if (row < 0 || row >= rows_.size() || column < 0 || column >= columns_.size()) return {};
    const double v = value(row, column);
    if (style_ == ValueStyle::Score && v == 0.0)
        return tr("%1 in %2: 0 (the format rounds nothing here)").arg(rows_[row], columns_[column]);
    return tr("%1 in %2: %3").arg(rows_[row], columns_[column], cellText(v));
}

std::pair<int, int> CategoryHeatmapPlot::cellAt(QPoint pixel) const {
    if (!axisRect()->rect().contains(pixel) || rows_.isEmpty() || columns_.isEmpty()) return {-1, -1};
    const int column = static_cast<int>(std::lround(xAxis->pixelToCoord(pixel.x())));
    const int row = static_cast<int>(rows_.size()) - 1 -
                    static_cast<int>(std::lround(yAxis->pixelToCoord(pixel.y())));
    if (row < 0 || row >= rows_.size() || column < 0 || column >= columns_.size()) return {-1, -1};
    return {row, column};
}

void CategoryHeatmapPlot::leftClicked(QPoint pixel) {
    const auto [row, column] = cellAt(pixel);
    if (row >= 0) Q_EMIT cellClicked(row, column);
}

void CategoryHeatmapPlot::resetView() {
    xAxis->setRange(-0.5, std::max<qsizetype>(1, columns_.size()) - 0.5);
    yAxis->setRange(-0.5, std::max<qsizetype>(1, rows_.size()) - 0.5);
    replot(rpQueuedReplot);
}

}  // namespace ampscope::ui
