#include "plots/HistogramSlicePlot.h"

#include <algorithm>
#include <cmath>

#include "plots/LegendRow.h"
#include "plots/PowerOfTwoText.h"
#include "plots/PowerOfTwoTicker.h"
#include "precision/Fp16Limits.h"

namespace ampscope::ui {

namespace {

// Far outside any bin: band edges that reach "all the way" left or right.
constexpr double kFarLeft = -200.0;
constexpr double kFarRight = 200.0;
const QColor kFlushFill(220, 50, 50, 45);
const QColor kSubnormalFill(230, 180, 0, 50);
const QColor kScaledLineColour(20, 90, 200);

// What fp16 does to the values of exponent bin k (before any scale): bins below the
// flush limit go to 0 whole, the flush limit's own bin rounds up, and the bin below the
// overflow limit holds both normals and (its top sliver) values that round to inf.
QString fp16Fate(int k) {
    const auto flushBin = static_cast<int>(fp16::kFlushedAtOrBelowLog2);
    const auto normalBin = static_cast<int>(fp16::kSmallestNormalLog2);
    const auto overflowBin = static_cast<int>(fp16::kOverflowLog2);
    if (k < flushBin) return HistogramSlicePlot::tr("fp16 flushes it to 0");
    if (k == flushBin)
        return HistogramSlicePlot::tr("fp16 rounds it up to %1 (the tie %2 itself flushes to 0)")
            .arg(powerOfTwoText(fp16::kSmallestSubnormalLog2), powerOfTwoText(flushBin));
    if (k < normalBin) return HistogramSlicePlot::tr("fp16 holds it as a subnormal (fewer bits)");
    if (k < overflowBin - 1) return HistogramSlicePlot::tr("fp16 holds it as a normal number");
    if (k == overflowBin - 1)
        return HistogramSlicePlot::tr("fp16 normal below %1; %1 and up become inf")
            .arg(fp16::kOverflowBound);
    return HistogramSlicePlot::tr("fp16 overflows it to inf");
}

int64_t binCount(const ExponentHistogram& h, int exponent) {
    // The edge bins also hold what lies beyond the range (never seen in practice, but
    // not dropped): the heatmap does the same.
    int64_t count = h.countAt(exponent);
    if (exponent == kMinExponent) count += h.below;
    if (exponent == kMaxExponent) count += h.above;
    return count;
}

}  // namespace

HistogramSlicePlot::HistogramSlicePlot(QWidget* parent) : InteractivePlot(parent) {
    setObjectName(QStringLiteral("histogram-slice"));
    setMinimumSize(260, 180);

    title_ = new QCPTextElement(this, tr("No histogram yet"));
    QFont titleFont = font();
    titleFont.setPointSizeF(std::max(7.0, titleFont.pointSizeF() * 0.95));
    title_->setFont(titleFont);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, title_);

    placeLegendInRow(*this, 1, 2, 0);  // under the title
    plotLayout()->setRowStretchFactor(0, 0.001);
    plotLayout()->setRowSpacing(0);

    // A plot that may be narrow (its least width is 260 px): x ticks every 4, 8, 16, ...
    // exponents, five labels at most, so that 2^k labels never touch.
    xAxis->setTicker(QSharedPointer<PowerOfTwoTicker>::create(4.0, 5.0));
    xAxis->setLabel(
        tr("|gradient| (bar k: 2\u1D4F \u2264 |g| < 2\u1D4F\u207A\u00B9, log\u2082 axis)"));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> logTicker(new QCPAxisTickerLog);
    logTicker->setSubTickCount(8);
    yAxis->setTicker(logTicker);
    yAxis->setNumberFormat(QStringLiteral("gb"));
    yAxis->setLabel(tr("elements (log axis)"));

    // Short names in the plot (it can be narrow); the legend says what the colours are.
    addBand(kFarLeft, fp16::kFlushedAtOrBelowLog2, kFlushFill, tr("\u2192 0"));
    addBand(fp16::kFlushedAtOrBelowLog2, fp16::kSmallestNormalLog2, kSubnormalFill, QString());
    addBand(fp16::kOverflowLog2, kFarRight, kFlushFill, tr("\u2192 inf"));

    for (const auto& [fill, name] : {std::pair{kFlushFill, tr("fp16: \u2192 0 or \u2192 inf")},
                                     std::pair{kSubnormalFill, tr("fp16: subnormal")}}) {
        QCPGraph* swatch = addGraph();  // no data: a legend entry for a band
        swatch->setName(name);
        swatch->setPen(QPen(fill.darker(150), 1.0));
        swatch->setBrush(fill);
    }
    bars_ = new QCPBars(xAxis, yAxis);
    bars_->setName(tr("elements per bin"));
    bars_->setWidth(1.0);
    bars_->setPen(QPen(QColor(40, 60, 110), 0.8));
    bars_->setBrush(QColor(70, 110, 180, 200));

    scaledLegend_ = addGraph();
    scaledLegend_->setName(tr("fp16 limit \u00F7 loss scale"));
    scaledLegend_->setPen(QPen(kScaledLineColour, 1.5, Qt::DashLine));
    scaledLegend_->removeFromLegend();

    for (int i = 0; i < 3; ++i) {
        auto* line = new QCPItemStraightLine(this);
        line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
        line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
        line->setPen(QPen(kScaledLineColour, 1.5, Qt::DashLine));
        line->setVisible(false);
        scaledLines_.push_back(line);
        auto* text = new QCPItemText(this);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->setRotation(-90);
        text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        text->setColor(kScaledLineColour);
        text->setBrush(QColor(255, 255, 255, 190));
        text->setClipToAxisRect(true);
        text->setVisible(false);
        scaledLabels_.push_back(text);
    }

    placeholder_ = new QCPItemText(this);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->setColor(QColor(110, 110, 110));
    placeholder_->setBrush(QColor(255, 255, 255, 210));
    placeholder_->setText(tr("No run yet"));
    applyRanges();
}

QCPItemRect* HistogramSlicePlot::addBand(double xLow, double xHigh, const QColor& fill,
                                         const QString& label) {
    auto* rect = new QCPItemRect(this);
    rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->topLeft->setCoords(xLow, 0.0);
    rect->bottomRight->setCoords(xHigh, 1.0);
    rect->setPen(Qt::NoPen);
    rect->setBrush(fill);
    rect->setClipToAxisRect(true);
    if (label.isEmpty()) return rect;
    auto* text = new QCPItemText(this);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    // Labelled at the edge that faces the data, in the band's own ink.
    const bool leftBand = xLow == kFarLeft;
    const bool rightBand = xHigh == kFarRight;
    text->position->setCoords(leftBand ? xHigh : (rightBand ? xLow : 0.5 * (xLow + xHigh)), 0.02);
    text->setPositionAlignment(
        (leftBand ? Qt::AlignRight : (rightBand ? Qt::AlignLeft : Qt::AlignHCenter)) |
        Qt::AlignTop);
    text->setText(label);
    QColor ink = fill.darker(300);
    ink.setAlpha(255);
    text->setColor(ink);
    text->setClipToAxisRect(true);
    return rect;
}

void HistogramSlicePlot::setSlice(const Slice& slice) {
    slice_ = slice;
    hasSlice_ = true;
    QVector<double> keys;
    QVector<double> values;
    for (int k = kMinExponent; k <= kMaxExponent; ++k) {
        const int64_t count = binCount(slice.histogram, k);
        if (count == 0) continue;  // no bar (and none on a log axis)
        keys << k + 0.5;
        values << static_cast<double>(count);
    }
    bars_->setData(keys, values, true);
    title_->setText(titleText());
    placeholder_->setVisible(keys.isEmpty());
    placeholder_->setText(tr("Every element is zero or non-finite at this step"));
    placeScaledLines();
    applyRanges();
    replot(QCustomPlot::rpQueuedReplot);
}

void HistogramSlicePlot::clearSlice(const QString& why) {
    hasSlice_ = false;
    slice_ = Slice{};
    bars_->data()->clear();
    title_->setText(tr("No histogram"));
    placeholder_->setText(why);
    placeholder_->setVisible(true);
    placeScaledLines();
    applyRanges();
    replot(QCustomPlot::rpQueuedReplot);
}

QString HistogramSlicePlot::titleText() const {
    if (!hasSlice_) return title_->text();
    const ExponentHistogram& h = slice_.histogram;
    // The kind is in the chooser above; the title stays short enough for a narrow slice.
    return tr("%1, step %2  |  zero %3 \u00B7 NaN %4 \u00B7 +Inf %5 \u00B7 -Inf %6")
        .arg(slice_.layer)
        .arg(slice_.step)
        .arg(h.zero)
        .arg(h.nan)
        .arg(h.posInf)
        .arg(h.negInf);
}

double HistogramSlicePlot::barValue(int exponent) const {
    if (!hasSlice_ || exponent < kMinExponent || exponent > kMaxExponent) return 0.0;
    return static_cast<double>(binCount(slice_.histogram, exponent));
}

std::vector<double> HistogramSlicePlot::scaledLimitXs() const {
    std::vector<double> xs;
    for (auto* line : scaledLines_)
        if (line->visible()) xs.push_back(line->point1->coords().x());
    return xs;
}

void HistogramSlicePlot::placeScaledLines() {
    const bool show = hasSlice_ && slice_.log2Scale.has_value();
    const double limits[3] = {fp16::kFlushedAtOrBelowLog2, fp16::kSmallestNormalLog2,
                              fp16::kOverflowLog2};
    for (std::size_t i = 0; i < 3; ++i) {
        scaledLines_[i]->setVisible(show);
        scaledLabels_[i]->setVisible(show);
        if (!show) continue;
        const double x = limits[i] - *slice_.log2Scale;
        scaledLines_[i]->point1->setCoords(x, 0.0);
        scaledLines_[i]->point2->setCoords(x, 1.0);
        scaledLabels_[i]->position->setCoords(x, 0.12);
        scaledLabels_[i]->setText(
            tr("%1 \u00F7 scale %2")
                .arg(powerOfTwoText(limits[i]), powerOfTwoText(*slice_.log2Scale)));
    }
    if (show)
        scaledLegend_->addToLegend();
    else
        scaledLegend_->removeFromLegend();
}

void HistogramSlicePlot::applyRanges() {
    // The bars, and every limit drawn, with a little room.
    // Room for the bands' labels on both sides.
    double low = fp16::kFlushedAtOrBelowLog2 - 5.0;
    double high = fp16::kOverflowLog2 + 5.0;
    double maxCount = 0.0;
    for (auto it = bars_->data()->constBegin(); it != bars_->data()->constEnd(); ++it) {
        low = std::min(low, it->key - 0.5);
        high = std::max(high, it->key + 0.5);
        maxCount = std::max(maxCount, it->value);
    }
    for (double x : scaledLimitXs()) {
        low = std::min(low, x);
        high = std::max(high, x);
    }
    xAxis->setRange(low - 2.0, high + 2.0);
    yAxis->setRange(0.5, std::max(10.0, maxCount * 3.0));
}

void HistogramSlicePlot::resetView() {
    applyRanges();
    replot(QCustomPlot::rpQueuedReplot);
}

QString HistogramSlicePlot::tooltipText(QPoint pixel) const {
    if (!hasSlice_ || !axisRect()->rect().contains(pixel)) return QString();
    const int k = static_cast<int>(std::floor(xAxis->pixelToCoord(pixel.x())));
    if (k < kMinExponent || k > kMaxExponent) return QString();
    const int64_t count = binCount(slice_.histogram, k);
    const int64_t total = slice_.histogram.total();
    QString text = tr("step %1, %2\n%3 \u2264 |g| < %4  (%5 \u2026 %6)\n%7 elements")
                       .arg(slice_.step)
                       .arg(slice_.layer)
                       .arg(powerOfTwoText(k), powerOfTwoText(k + 1))
                       .arg(std::exp2(k), 0, 'g', 3)
                       .arg(std::exp2(k + 1), 0, 'g', 3)
                       .arg(count);
    if (total > 0)
        text += tr(" (%1% of %2)")
                    .arg(100.0 * count / static_cast<double>(total), 0, 'g', 3)
                    .arg(total);
    if (slice_.log2Scale) {
        const double scaled = k + *slice_.log2Scale;
        text += tr("\nonce scaled by %1: %2")
                    .arg(powerOfTwoText(*slice_.log2Scale),
                         fp16Fate(static_cast<int>(std::floor(scaled))));
    } else {
        text += QStringLiteral("\n") + fp16Fate(k);
    }
    return text;
}

}  // namespace ampscope::ui
