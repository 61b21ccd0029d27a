#include "plots/PrecisionMapPlot.h"

#include <algorithm>
#include <cmath>

#include "plots/LegendRow.h"

namespace ampscope::ui {

namespace {

const QColor kBandColors[2] = {QColor(236, 239, 241), QColor(250, 250, 250)};
const QColor kRoundoffColor(120, 120, 120);
const QColor kPastColor(200, 30, 30);
constexpr int kClickReach = 8;  // pixels

QCPScatterStyle dots(const QColor& color) { return QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 5); }

QCPScatterStyle rings(const QColor& color) {
    return QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(color, 1.2), Qt::NoBrush, 7);
}

}  // namespace

PrecisionMapPlot::PrecisionMapPlot(QWidget* parent) : InteractivePlot(parent) {
    setObjectName(QStringLiteral("precision-map-plot"));
    setMinimumSize(400, 220);
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    yAxis->setTicker(ticker);
    yAxis->setNumberFormat(QStringLiteral("eb"));
    yAxis->setNumberPrecision(0);
    yAxis->setLabel(tr("relative error ||x - ref|| / ||ref|| (log)"));
    xAxis->setLabel(tr("op, in execution order (forward, then backward)"));
    xAxis->grid()->setVisible(false);
    placeLegendInRow(*this, 0, 6, 2);
    placeholder_ = new QCPItemText(this);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setColor(QColor(90, 90, 90));
    clearMap(tr("No precision map yet: list steps in probes.precision_map_steps, or pause a run and "
                "use Run > Map this step against fp32."));
}

double PrecisionMapPlot::shown(double error) {
    if (std::isnan(error)) return error;
    if (std::isinf(error)) return 10.0;
    return std::max(error, kExactFloor);
}

int PrecisionMapPlot::opCount() const {
    return map_.series.empty() ? 0 : static_cast<int>(map_.series.front().relError.size());
}

void PrecisionMapPlot::clearItems() {
    for (auto* item : items_) removeItem(item);
    items_.clear();
    clearGraphs();
    selectedGraph_ = nullptr;
}

void PrecisionMapPlot::clearMap(const QString& why) {
    clearItems();
    map_ = Map{};
    selected_ = -1;
    placeholder_->setText(why);
    placeholder_->setVisible(true);
    legend->setVisible(false);
    resetView();
}

QString PrecisionMapPlot::placeholderText() const {
    return placeholder_->visible() ? placeholder_->text() : QString();
}

void PrecisionMapPlot::addBands() {
    for (size_t k = 0; k < map_.bands.size(); ++k) {
        const Band& band = map_.bands[k];
        auto* rect = new QCPItemRect(this);
        rect->setLayer(QStringLiteral("background"));
        rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rect->topLeft->setCoords(band.firstOp - 0.5, 0.0);
        rect->bottomRight->setCoords(band.firstOp + band.ops - 0.5, 1.0);
        rect->setPen(Qt::NoPen);
        rect->setBrush(kBandColors[k % 2]);
        items_.push_back(rect);
        auto* label = new QCPItemText(this);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(band.firstOp + (band.ops - 1) / 2.0, 0.01);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
        label->setRotation(-90);
        label->setText(band.label);
        QFont font = this->font();
        font.setPointSizeF(font.pointSizeF() * 0.8);
        label->setFont(font);
        label->setColor(QColor(70, 70, 70));
        label->setClipToAxisRect(true);
        items_.push_back(label);
    }
}

void PrecisionMapPlot::addLines() {
    const int n = opCount();
    const int split = map_.firstBackward >= 0 ? map_.firstBackward : n;
    const auto roundoff = [&](double u, int from, int to, const QString& format) {
        if (u <= 0.0 || from >= to) return;
        auto* line = new QCPItemLine(this);
        line->start->setCoords(from - 0.5, u);
        line->end->setCoords(to - 0.5, u);
        line->setPen(QPen(kRoundoffColor, 1.2, Qt::DashLine));
        items_.push_back(line);
        auto* text = new QCPItemText(this);
        text->position->setCoords(from - 0.4, u);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        text->setText(tr("u = 2^%1 (%2)").arg(std::lround(std::log2(u))).arg(format));
        text->setColor(kRoundoffColor);
        items_.push_back(text);
    };
    roundoff(map_.unitRoundoffForward, 0, split, map_.formatForward);
    roundoff(map_.unitRoundoffBackward, split, n, map_.formatBackward);
    if (map_.firstBackward > 0) {
        auto* divider = new QCPItemStraightLine(this);
        divider->point1->setCoords(map_.firstBackward - 0.5, 1e-30);
        divider->point2->setCoords(map_.firstBackward - 0.5, 1.0);
        divider->setPen(QPen(QColor(60, 60, 60), 1.5));
        items_.push_back(divider);
        auto* text = new QCPItemText(this);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(map_.firstBackward - 0.3, 0.02);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setText(tr("backward →"));
        items_.push_back(text);
    }
    if (map_.firstPastTolerance) {
        const int k = *map_.firstPastTolerance;
        auto* arrow = new QCPItemLine(this);
        arrow->end->setCoords(k, shown(map_.series.front().relError[static_cast<size_t>(k)]));
        arrow->start->setParentAnchor(arrow->end);
        arrow->start->setType(QCPItemPosition::ptAbsolute);
        arrow->start->setCoords(0, -40);  // 40 pixels above
        arrow->setHead(QCPLineEnding::esSpikeArrow);
        arrow->setPen(QPen(kPastColor, 1.5));
        items_.push_back(arrow);
        auto* text = new QCPItemText(this);
        text->position->setParentAnchor(arrow->start);
        text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        text->setText(tr("first past %1").arg(map_.tolerance, 0, 'g', 2));
        text->setColor(kPastColor);
        items_.push_back(text);
    }
}

void PrecisionMapPlot::setMap(const Map& map) {
    clearItems();
    map_ = map;
    placeholder_->setVisible(map_.series.empty() || opCount() == 0);
    if (placeholder_->visible()) placeholder_->setText(tr("The map has no ops."));
    addBands();
    for (size_t s = 0; s < map_.series.size(); ++s) {
        const Series& series = map_.series[s];
        QVector<double> x, rel, xa, added;
        for (size_t k = 0; k < series.relError.size(); ++k) {
            if (!std::isnan(series.relError[k])) {
                x << static_cast<double>(k);
                rel << shown(series.relError[k]);
            }
            if (k < series.addedError.size() && !std::isnan(series.addedError[k])) {
                xa << static_cast<double>(k);
                added << shown(series.addedError[k]);
            }
        }
        auto* relGraph = addGraph();
        relGraph->setData(x, rel, true);
        relGraph->setPen(QPen(series.color, 1.2));
        relGraph->setScatterStyle(dots(series.color));
        relGraph->setName(tr("%1: relative error").arg(series.name));
        auto* addedGraph = addGraph();
        addedGraph->setData(xa, added, true);
        addedGraph->setLineStyle(QCPGraph::lsNone);
        addedGraph->setScatterStyle(rings(series.color.darker(130)));
        addedGraph->setName(tr("%1: its own").arg(series.name));
    }
    selectedGraph_ = addGraph();
    selectedGraph_->setLineStyle(QCPGraph::lsNone);
    selectedGraph_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2.0), Qt::NoBrush, 13));
    selectedGraph_->removeFromLegend();
    addLines();
    legend->setVisible(!map_.series.empty());
    setSelectedOp(selected_ < opCount() ? selected_ : -1);
    resetView();
}

void PrecisionMapPlot::setSelectedOp(int index) {
    selected_ = index >= 0 && index < opCount() ? index : -1;
    if (!selectedGraph_) return;
    QVector<double> x, y;
    if (selected_ >= 0) {
        x << selected_;
        y << shown(map_.series.front().relError[static_cast<size_t>(selected_)]);
    }
    selectedGraph_->setData(x, y, true);
    replot(rpQueuedReplot);
}

QPoint PrecisionMapPlot::opPixel(int index) const {
    if (index < 0 || index >= opCount()) return {};
    const double y = shown(map_.series.front().relError[static_cast<size_t>(index)]);
    return QPoint(static_cast<int>(std::lround(xAxis->coordToPixel(index))),
                  static_cast<int>(std::lround(yAxis->coordToPixel(std::isnan(y) ? kExactFloor : y))));
}

int PrecisionMapPlot::opAt(QPoint pixel) const {
    if (!axisRect()->rect().contains(pixel) || opCount() == 0) return -1;
    const int k = static_cast<int>(std::lround(xAxis->pixelToCoord(pixel.x())));
    if (k < 0 || k >= opCount()) return -1;
    return std::abs(xAxis->coordToPixel(k) - pixel.x()) <= kClickReach ? k : -1;
}

QString PrecisionMapPlot::tooltipText(QPoint pixel) const {
    const int k = opAt(pixel);
    if (k < 0 || k >= map_.tooltips.size()) return {};
    return map_.tooltips[k];
}

void PrecisionMapPlot::leftClicked(QPoint pixel) {
    const int k = opAt(pixel);
    if (k < 0) return;
    setSelectedOp(k);
    Q_EMIT opClicked(k);
}

void PrecisionMapPlot::resetView() {
    const int n = opCount();
    xAxis->setRange(-1.0, std::max(n, 1));
    double low = 1.0, high = 1e-3;
    const auto widen = [&](double value) {
        if (std::isnan(value)) return;
        low = std::min(low, shown(value));
        high = std::max(high, shown(value));
    };
    for (const auto& series : map_.series) {
        for (double e : series.relError) widen(e);
        for (double e : series.addedError) widen(e);
    }
    widen(map_.unitRoundoffForward);
    widen(map_.unitRoundoffBackward);
    // Decades to spare: room for the band labels below and the marker above.
    yAxis->setRange(low / 30.0, high * 30.0);
    replot(rpQueuedReplot);
}

}  // namespace ampscope::ui
