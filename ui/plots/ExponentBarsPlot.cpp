#include "plots/ExponentBarsPlot.h"

#include <algorithm>
#include <cmath>

#include "plots/PowerOfTwoText.h"
#include "plots/PowerOfTwoTicker.h"

namespace ampscope::ui {

ExponentBarsPlot::ExponentBarsPlot(QWidget* parent) : InteractivePlot(parent) {
    setObjectName(QStringLiteral("exponent-bars"));
    setMinimumSize(260, 160);
    bars_ = new QCPBars(xAxis, yAxis);
    bars_->setWidth(0.8);
    bars_->setPen(QPen(QColor(31, 119, 180)));
    bars_->setBrush(QColor(31, 119, 180, 170));
    bars_->setName(tr("blocks"));
    selectedBar_ = new QCPBars(xAxis, yAxis);
    selectedBar_->setWidth(0.8);
    selectedBar_->setPen(QPen(QColor(200, 80, 0), 2.0));
    selectedBar_->setBrush(QColor(255, 127, 14, 200));
    selectedBar_->setName(tr("chosen scale"));
    xAxis->setTicker(QSharedPointer<PowerOfTwoTicker>::create());
    legend->setVisible(true);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    placeholder_ = new QCPItemText(this);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setColor(QColor(90, 90, 90));
    resetView();
}

void ExponentBarsPlot::setBars(const std::map<int, int64_t>& counts) {
    counts_ = counts;
    sharedExponents_.reset();
    QVector<double> keys, values;
    for (const auto& [exponent, count] : counts) {
        keys << exponent;
        values << static_cast<double>(count);
    }
    bars_->setData(keys, values, true);
    if (selected_ && !counts_.count(*selected_)) selected_.reset();
    updateSelection();
    resetView();
}

void ExponentBarsPlot::setLabels(const QString& xLabel, const QString& yLabel) {
    xAxis->setLabel(xLabel);
    yAxis->setLabel(yLabel);
}

void ExponentBarsPlot::setSelectedExponent(std::optional<int> exponent) {
    selected_ = exponent;
    updateSelection();
    replot(rpQueuedReplot);
}

void ExponentBarsPlot::updateSelection() {
    QVector<double> keys, values;
    if (selected_) {
        const auto it = counts_.find(*selected_);
        keys << *selected_;
        values << (it == counts_.end() ? 0.0 : static_cast<double>(it->second));
    }
    selectedBar_->setData(keys, values, true);
    if (selected_)
        selectedBar_->addToLegend();
    else
        selectedBar_->removeFromLegend();
}

void ExponentBarsPlot::setPlaceholder(const QString& text) {
    placeholder_->setText(text);
    placeholder_->setVisible(!text.isEmpty());
    replot(rpQueuedReplot);
}

QString ExponentBarsPlot::placeholderText() const {
    return placeholder_->visible() ? placeholder_->text() : QString();
}

std::optional<int> ExponentBarsPlot::exponentAt(QPoint pixel) const {
    if (!axisRect()->rect().contains(pixel)) return std::nullopt;
    const int exponent = static_cast<int>(std::lround(xAxis->pixelToCoord(pixel.x())));
    if (!counts_.count(exponent)) return std::nullopt;
    return exponent;
}

QPoint ExponentBarsPlot::barCentre(int exponent) const {
    const auto it = counts_.find(exponent);
    const double height = it == counts_.end() ? 0.0 : static_cast<double>(it->second) / 2.0;
    return QPoint(static_cast<int>(std::lround(xAxis->coordToPixel(exponent))),
                  static_cast<int>(std::lround(yAxis->coordToPixel(height))));
}

QString ExponentBarsPlot::tooltipText(QPoint pixel) const {
    const auto exponent = exponentAt(pixel);
    if (!exponent) return {};
    return tr("scale %1: %2 blocks\n(click to use it in the Format explorer)")
        .arg(powerOfTwoText(*exponent))
        .arg(counts_.at(*exponent));
}

void ExponentBarsPlot::setSharedExtent(int lowExponent, int highExponent, int64_t highest) {
    sharedExponents_ = std::make_pair(lowExponent, highExponent);
    sharedHighest_ = highest;
    resetView();
}

void ExponentBarsPlot::resetView() {
    if (sharedExponents_) {
        xAxis->setRange(sharedExponents_->first - 1.5, sharedExponents_->second + 1.5);
        yAxis->setRange(0, std::max<double>(1.0, static_cast<double>(sharedHighest_) * 1.12));
    } else if (counts_.empty()) {
        xAxis->setRange(-10, 10);
        yAxis->setRange(0, 1);
    } else {
        xAxis->setRange(counts_.begin()->first - 1.5, counts_.rbegin()->first + 1.5);
        int64_t highest = 0;
        for (const auto& [exponent, count] : counts_) highest = std::max(highest, count);
        yAxis->setRange(0, std::max<double>(1.0, static_cast<double>(highest) * 1.12));
    }
    replot(rpQueuedReplot);
}

void ExponentBarsPlot::leftClicked(QPoint at) {
    if (const auto exponent = exponentAt(at)) {
        setSelectedExponent(*exponent);
        Q_EMIT exponentClicked(*exponent);
    }
}

}  // namespace ampscope::ui
