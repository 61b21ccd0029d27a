// HeatmapPlot's marks drawn over the map: lines and bands at row heights with their
// labels at the right edge, the fp16 limits, and the placeholder that says why a map is
// empty. The map itself (grid, columns, colours, axes) is HeatmapPlot.cpp.
#include <limits>

#include "plots/HeatmapPlot.h"
#include "plots/PowerOfTwoText.h"
#include "precision/Fp16Limits.h"

namespace ampscope::ui {

void HeatmapPlot::placeLabel(QCPItemText* label, double y) {
    label->position->setCoords(label->position->coords().x(), y);
}

int HeatmapPlot::addLine(double y, const QString& label, const QColor& colour, Qt::PenStyle style) {
    auto* line = new QCPItemStraightLine(this);
    line->setClipAxisRect(mapRect_);
    line->point1->setCoords(0.0, y);
    line->point2->setCoords(1.0, y);
    line->setPen(QPen(colour, 1.5, style));
    auto* text = new QCPItemText(this);
    text->setClipAxisRect(mapRect_);
    text->position->setAxisRect(mapRect_);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    text->position->setCoords(0.99, y);
    text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    text->setText(label);
    text->setColor(colour);
    text->setBrush(QColor(255, 255, 255, 190));
    text->setClipToAxisRect(true);
    const int id = nextOverlayId_++;
    overlays_[id] = {line, text, false};
    return id;
}

int HeatmapPlot::addBand(double yLow, double yHigh, const QString& label, const QColor& fill) {
    auto* rect = new QCPItemRect(this);
    rect->setClipAxisRect(mapRect_);
    rect->topLeft->setAxisRect(mapRect_);
    rect->bottomRight->setAxisRect(mapRect_);
    rect->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
    rect->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
    rect->topLeft->setCoords(0.0, yHigh);
    rect->bottomRight->setCoords(1.0, yLow);
    rect->setPen(Qt::NoPen);
    rect->setBrush(fill);
    auto* text = new QCPItemText(this);
    text->setClipAxisRect(mapRect_);
    text->position->setAxisRect(mapRect_);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    text->position->setCoords(0.01, 0.5 * (yLow + yHigh));
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    text->setText(label);
    QColor ink = fill.darker(300);
    ink.setAlpha(255);  // the fill is faint; its label must not be
    text->setColor(ink);
    text->setBrush(QColor(255, 255, 255, 200));
    text->setPadding(QMargins(3, 1, 3, 1));
    text->setClipToAxisRect(true);
    const int id = nextOverlayId_++;
    overlays_[id] = {rect, text, true};
    return id;
}

void HeatmapPlot::moveOverlay(int id, double yLow, double yHigh) {
    auto it = overlays_.find(id);
    if (it == overlays_.end()) return;
    Overlay& o = it->second;
    if (o.band) {
        auto* rect = static_cast<QCPItemRect*>(o.shape);
        rect->topLeft->setCoords(0.0, yHigh);
        rect->bottomRight->setCoords(1.0, yLow);
        placeLabel(o.label, 0.5 * (yLow + yHigh));
    } else {
        auto* line = static_cast<QCPItemStraightLine*>(o.shape);
        line->point1->setCoords(0.0, yLow);
        line->point2->setCoords(1.0, yLow);
        placeLabel(o.label, yLow);
    }
}

double HeatmapPlot::overlayY(int id) const {
    auto it = overlays_.find(id);
    if (it == overlays_.end()) return std::numeric_limits<double>::quiet_NaN();  // no such overlay
    if (it->second.band)
        return static_cast<QCPItemRect*>(it->second.shape)->bottomRight->coords().y();
    return static_cast<QCPItemStraightLine*>(it->second.shape)->point1->coords().y();
}

double HeatmapPlot::overlayHighY(int id) const {
    auto it = overlays_.find(id);
    if (it == overlays_.end()) return std::numeric_limits<double>::quiet_NaN();  // no such overlay
    if (it->second.band) return static_cast<QCPItemRect*>(it->second.shape)->topLeft->coords().y();
    return static_cast<QCPItemStraightLine*>(it->second.shape)->point1->coords().y();
}

void HeatmapPlot::removeOverlay(int id) {
    auto it = overlays_.find(id);
    if (it == overlays_.end()) return;
    removeItem(it->second.shape);
    removeItem(it->second.label);
    overlays_.erase(it);
    std::erase(fp16Bands_, id);
    std::erase(fp16ScaledLines_, id);
}

void HeatmapPlot::clearOverlays() {
    for (auto& [id, o] : overlays_) {
        removeItem(o.shape);
        removeItem(o.label);
    }
    overlays_.clear();
    fp16Bands_.clear();
    fp16ScaledLines_.clear();
}

void HeatmapPlot::showFp16Limits(double log2Scale) {
    const double limits[3] = {fp16::kFlushedAtOrBelowLog2, fp16::kSmallestNormalLog2,
                              fp16::kOverflowLog2};
    if (fp16Bands_.empty()) {
        const double bottom = layout_.firstBinY;
        const double top = valueBinsTopY();
        fp16Bands_.push_back(
            addBand(bottom, limits[0], tr("fp16: flushed to 0"), QColor(220, 50, 50, 40)));
        fp16Bands_.push_back(
            addBand(limits[0], limits[1], tr("fp16 subnormal"), QColor(230, 180, 0, 40)));
        fp16Bands_.push_back(
            addBand(limits[2], top, tr("fp16 overflow (inf)"), QColor(220, 50, 50, 40)));
    }
    const QString scaleText = powerOfTwoText(log2Scale);
    if (fp16ScaledLines_.empty()) {
        for (double limit : limits)
            fp16ScaledLines_.push_back(addLine(limit - log2Scale, QString(), QColor(20, 90, 200)));
    }
    for (int i = 0; i < 3; ++i) {
        moveOverlay(fp16ScaledLines_[static_cast<std::size_t>(i)], limits[i] - log2Scale);
        overlays_[fp16ScaledLines_[static_cast<std::size_t>(i)]].label->setText(
            tr("%1 \u00F7 scale %2").arg(powerOfTwoText(limits[i]), scaleText));
    }
}

void HeatmapPlot::setPlaceholder(const QString& text) {
    if (!placeholder_) {
        placeholder_ = new QCPItemText(this);
        placeholder_->setClipAxisRect(mapRect_);
        placeholder_->position->setAxisRect(mapRect_);
        placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
        placeholder_->position->setCoords(0.5, 0.5);
        placeholder_->setPositionAlignment(Qt::AlignCenter);
        placeholder_->setColor(QColor(90, 90, 90));
        placeholder_->setBrush(QColor(255, 255, 255, 220));
        placeholder_->setPadding(QMargins(6, 3, 6, 3));
    }
    placeholder_->setText(text);
    placeholder_->setVisible(!text.isEmpty());
}

QString HeatmapPlot::placeholderText() const {
    return placeholder_ && placeholder_->visible() ? placeholder_->text() : QString();
}

}  // namespace ampscope::ui
