#include "plots/ExponentOverlayPlot.h"

#include <algorithm>
#include <cmath>

#include "plots/LegendRow.h"
#include "plots/PowerOfTwoText.h"
#include "plots/PowerOfTwoTicker.h"

namespace ampscope::ui {

ExponentOverlayPlot::ExponentOverlayPlot(QWidget* parent) : InteractivePlot(parent) {
    setObjectName(QStringLiteral("exponent-overlay"));
    setMinimumSize(260, 160);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    xAxis->setTicker(QSharedPointer<PowerOfTwoTicker>::create());
    xAxis->setLabel(tr("|x| (bin 2^k holds [2^k, 2^(k+1)))"));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    yAxis->setNumberFormat(QStringLiteral("eb"));
    yAxis->setNumberPrecision(0);
    yAxis->setLabel(tr("elements (log)"));
    placeLegendInRow(*this, 2, 3, 2);
    placeholder_ = new QCPItemText(this);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setColor(QColor(90, 90, 90));
    clear(tr("Click an op in the map to compare its values with the reference's."));
}

void ExponentOverlayPlot::clear(const QString& why) {
    curves_.clear();
    clearGraphs();
    title_->setText(QString());
    placeholder_->setText(why);
    placeholder_->setVisible(true);
    legend->setVisible(false);
    resetView();
}

QString ExponentOverlayPlot::titleText() const { return title_->text(); }

void ExponentOverlayPlot::setHistograms(const QString& title, const std::vector<Curve>& curves) {
    curves_ = curves;
    clearGraphs();
    title_->setText(title);
    placeholder_->setVisible(false);
    lowBin_ = kExponentBins;
    highBin_ = -1;
    for (const Curve& c : curves_)
        for (int i = 0; i < kExponentBins; ++i)
            if (c.histogram.counts[static_cast<size_t>(i)] > 0) {
                lowBin_ = std::min(lowBin_, i);
                highBin_ = std::max(highBin_, i);
            }
    for (const Curve& c : curves_) {
        QVector<double> x, y;
        for (int i = std::max(0, lowBin_ - 1); i <= std::min(kExponentBins - 1, highBin_ + 1); ++i) {
            x << kMinExponent + i;
            // A log axis has no 0: an empty bin sits below the visible range.
            y << std::max(0.5, static_cast<double>(c.histogram.counts[static_cast<size_t>(i)]));
        }
        auto* graph = addGraph();
        graph->setData(x, y, true);
        graph->setLineStyle(QCPGraph::lsStepCenter);
        graph->setPen(QPen(c.color, 2.0));
        const int64_t nonFinite = c.histogram.nan + c.histogram.posInf + c.histogram.negInf;
        graph->setName(tr("%1 (%2 zero, %3 NaN/Inf)").arg(c.name).arg(c.histogram.zero).arg(nonFinite));
    }
    legend->setVisible(!curves_.empty());
    resetView();
}

QString ExponentOverlayPlot::tooltipText(QPoint pixel) const {
    if (curves_.empty() || !axisRect()->rect().contains(pixel)) return {};
    const int exponent = static_cast<int>(std::lround(xAxis->pixelToCoord(pixel.x())));
    if (exponent < kMinExponent || exponent > kMaxExponent) return {};
    QString text = tr("[%1, %2)").arg(powerOfTwoText(exponent), powerOfTwoText(exponent + 1));
    for (const Curve& c : curves_) text += tr("\n%1: %2").arg(c.name).arg(c.histogram.countAt(exponent));
    return text;
}

void ExponentOverlayPlot::resetView() {
    if (highBin_ < lowBin_ || curves_.empty()) {
        xAxis->setRange(-20, 5);
        yAxis->setRange(0.8, 1000);
    } else {
        xAxis->setRange(kMinExponent + lowBin_ - 1.5, kMinExponent + highBin_ + 1.5);
        double most = 1.0;
        for (const Curve& c : curves_)
            for (int64_t count : c.histogram.counts) most = std::max(most, static_cast<double>(count));
        yAxis->setRange(0.8, most * 2.0);
    }
    replot(rpQueuedReplot);
}

}  // namespace ampscope::ui
