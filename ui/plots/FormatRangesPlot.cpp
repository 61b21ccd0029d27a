#include "plots/FormatRangesPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plots/PowerOfTwoText.h"
#include "plots/PowerOfTwoTicker.h"

namespace ampscope::ui {

namespace {

// The narrow formats set the default view; fp32 and bf16 span ~2^-149..2^128.
constexpr double kDefaultLowLog2 = -26.0;
constexpr double kDefaultHighLog2 = 17.0;

constexpr int kRowPixels = 13;

const QColor kNormalFill(31, 119, 180, 200);
const QColor kSubnormalFill(31, 119, 180, 70);
const QColor kMarkColour(200, 0, 0);

}  // namespace

FormatRangesPlot::FormatRangesPlot(QWidget* parent) : InteractivePlot(parent) {
    setObjectName(QStringLiteral("format-ranges"));
    setMinimumSize(320, 210);
    rangesRect_ = axisRect();
    histogramRect_ = new QCPAxisRect(this);
    plotLayout()->addElement(1, 0, histogramRect_);
    plotLayout()->setRowStretchFactor(0, 1.0);
    plotLayout()->setRowStretchFactor(1, 1.0);
    auto* margins = new QCPMarginGroup(this);
    rangesRect_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    histogramRect_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    histogramRect_->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    histogramRect_->setRangeZoom(Qt::Horizontal | Qt::Vertical);

    QCPAxis* rangesX = rangesRect_->axis(QCPAxis::atBottom);
    QCPAxis* histX = histogramRect_->axis(QCPAxis::atBottom);
    QCPAxis* histY = histogramRect_->axis(QCPAxis::atLeft);
    for (QCPAxis* x : {rangesX, histX}) x->setTicker(QSharedPointer<PowerOfTwoTicker>::create());
    // The ranges share the histogram's x axis, drawn once under both: the strip keeps its
    // grid lines (to read across) but no tick labels of its own.
    rangesX->setTickLabels(false);
    rangesX->setTickLength(0, 0);
    rangesX->setSubTicks(false);
    histX->setLabel(tr("|x| (log\u2082 axis); above: each format's subnormals (light) and normal range (solid)"));
    histY->setLabel(tr("elements"));
    histY->ticker()->setTickCount(3);  // a short strip: three labels read, six overlap
    rangesRect_->axis(QCPAxis::atLeft)->setTickLength(0, 0);
    rangesRect_->axis(QCPAxis::atLeft)->setSubTicks(false);
    rangesRect_->axis(QCPAxis::atLeft)->grid()->setVisible(false);
    // One x range for both.
    connect(rangesX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), histX,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(histX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), rangesX,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    bars_ = new QCPBars(histX, histY);
    bars_->setWidth(1.0);
    bars_->setPen(QPen(QColor(60, 60, 60)));
    bars_->setBrush(QColor(140, 140, 140, 190));
    auto* histLegend = new QCPLegend;
    histogramRect_->insetLayout()->addElement(histLegend, Qt::AlignTop | Qt::AlignRight);
    histLegend->setLayer(QStringLiteral("legend"));
    bars_->addToLegend(histLegend);
    legend->setVisible(false);

    rangesMark_ = new QCPItemStraightLine(this);
    histogramMark_ = new QCPItemStraightLine(this);
    for (auto [line, rect] : {std::pair{rangesMark_, rangesRect_}, std::pair{histogramMark_, histogramRect_}}) {
        line->setClipAxisRect(rect);
        for (QCPItemPosition* p : {line->point1, line->point2}) {
            p->setAxisRect(rect);
            p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        }
        line->setPen(QPen(kMarkColour, 1.6, Qt::DashLine));
        line->setVisible(false);
    }

    placeholder_ = new QCPItemText(this);
    placeholder_->setClipAxisRect(histogramRect_);
    placeholder_->position->setAxisRect(histogramRect_);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->setColor(QColor(90, 90, 90));
    resetView();
}

void FormatRangesPlot::setFormats(const std::vector<FormatSpan>& spans) {
    spans_ = spans;
    redrawSpans();
    resetView();
}

void FormatRangesPlot::redrawSpans() {
    for (QCPAbstractItem* item : spanItems_) removeItem(item);
    spanItems_.clear();
    QCPAxis* x = rangesRect_->axis(QCPAxis::atBottom);
    QCPAxis* y = rangesRect_->axis(QCPAxis::atLeft);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int n = static_cast<int>(spans_.size());
    const auto addBar = [&](double fromLog2, double toLog2, double row, const QColor& fill) {
        auto* rect = new QCPItemRect(this);
        rect->setClipAxisRect(rangesRect_);
        for (QCPItemPosition* p : {rect->topLeft, rect->bottomRight}) {
            p->setAxisRect(rangesRect_);
            p->setAxes(x, y);
        }
        rect->topLeft->setCoords(fromLog2, row + 0.32);
        rect->bottomRight->setCoords(toLog2, row - 0.32);
        rect->setPen(Qt::NoPen);
        rect->setBrush(fill);
        spanItems_.push_back(rect);
    };
    for (int i = 0; i < n; ++i) {
        const FormatSpan& s = spans_[static_cast<std::size_t>(i)];
        const double row = n - 1 - i;  // first format on top
        ticker->addTick(row, s.name);
        if (s.minSubnormal > 0.0) addBar(std::log2(s.minSubnormal), std::log2(s.minNormal), row, kSubnormalFill);
        addBar(std::log2(s.minNormal), std::log2(s.maxFinite), row, kNormalFill);
    }
    y->setTicker(ticker);
    y->setRange(-0.6, std::max(1, n) - 0.4);
    // A fixed height per format row: the histogram takes whatever the dock has left.
    const int height = std::max(1, n) * kRowPixels;
    rangesRect_->setSizeConstraintRect(QCPLayoutElement::scrInnerRect);
    rangesRect_->setMinimumSize(0, height);
    rangesRect_->setMaximumSize(QWIDGETSIZE_MAX, height);
    replot(rpQueuedReplot);
}

void FormatRangesPlot::setHistogram(const std::map<int, int64_t>& bins, const QString& title) {
    bins_ = bins;
    QVector<double> keys, values;
    for (const auto& [k, count] : bins) {
        if (count <= 0) continue;
        keys << k + 0.5;
        values << static_cast<double>(count);
    }
    bars_->setData(keys, values, true);
    bars_->setName(title);
    resetView();
}

void FormatRangesPlot::setMarkedValue(double value) {
    marked_ = std::isfinite(value) && value != 0.0;
    markedLog2_ = marked_ ? std::log2(std::fabs(value)) : 0.0;
    for (QCPItemStraightLine* line : {rangesMark_, histogramMark_}) {
        line->setVisible(marked_);
        line->point1->setCoords(markedLog2_, 0.0);
        line->point2->setCoords(markedLog2_, 1.0);
    }
    // Keep the mark in view.
    QCPAxis* x = rangesRect_->axis(QCPAxis::atBottom);
    if (marked_ && !x->range().contains(markedLog2_))
        x->setRange(std::min(x->range().lower, markedLog2_ - 2.0), std::max(x->range().upper, markedLog2_ + 2.0));
    replot(rpQueuedReplot);
}

void FormatRangesPlot::setPlaceholder(const QString& text) {
    placeholder_->setText(text);
    placeholder_->setVisible(!text.isEmpty());
    replot(rpQueuedReplot);
}

QString FormatRangesPlot::placeholderText() const {
    return placeholder_->visible() ? placeholder_->text() : QString();
}

std::optional<int> FormatRangesPlot::binAt(QPoint pixel) const {
    if (!histogramRect_->rect().contains(pixel)) return std::nullopt;
    const int k = static_cast<int>(std::floor(histogramRect_->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x())));
    const auto it = bins_.find(k);
    if (it == bins_.end() || it->second <= 0) return std::nullopt;
    return k;
}

QPoint FormatRangesPlot::binCentre(int exponent) const {
    const auto it = bins_.find(exponent);
    const double height = it == bins_.end() ? 0.0 : static_cast<double>(it->second) / 2.0;
    return QPoint(static_cast<int>(std::lround(histogramRect_->axis(QCPAxis::atBottom)->coordToPixel(exponent + 0.5))),
                  static_cast<int>(std::lround(histogramRect_->axis(QCPAxis::atLeft)->coordToPixel(height))));
}

QString FormatRangesPlot::tooltipText(QPoint pixel) const {
    if (const auto k = binAt(pixel))
        return tr("%1 \u2264 |x| < %2: %3 elements\n(click: explore its geometric middle 2^(k+\u00BD))")
            .arg(powerOfTwoText(*k), powerOfTwoText(*k + 1))
            .arg(bins_.at(*k));
    if (!rangesRect_->rect().contains(pixel) || spans_.empty()) return {};
    const int n = static_cast<int>(spans_.size());
    const int row = static_cast<int>(std::lround(rangesRect_->axis(QCPAxis::atLeft)->pixelToCoord(pixel.y())));
    const int index = n - 1 - row;
    if (index < 0 || index >= n) return {};
    const FormatSpan& s = spans_[static_cast<std::size_t>(index)];
    QString text = tr("%1: normal %2 .. %3").arg(s.name, powerOfTwoText(std::log2(s.minNormal)),
                                                 QString::number(s.maxFinite, 'g', 6));
    if (s.minSubnormal > 0.0) text += tr(", subnormals down to %1").arg(powerOfTwoText(std::log2(s.minSubnormal)));
    return text;
}

void FormatRangesPlot::resetView() {
    double low = kDefaultLowLog2, high = kDefaultHighLog2;
    int64_t highest = 0;
    for (const auto& [k, count] : bins_) {
        if (count <= 0) continue;
        low = std::min(low, k - 1.0);
        high = std::max(high, k + 2.0);
        highest = std::max(highest, count);
    }
    if (marked_) {
        low = std::min(low, markedLog2_ - 2.0);
        high = std::max(high, markedLog2_ + 2.0);
    }
    rangesRect_->axis(QCPAxis::atBottom)->setRange(low, high);
    histogramRect_->axis(QCPAxis::atLeft)->setRange(0.0, std::max<double>(1.0, static_cast<double>(highest) * 1.1));
    rangesRect_->axis(QCPAxis::atLeft)->setRange(-0.6, std::max<int>(1, static_cast<int>(spans_.size())) - 0.4);
    replot(rpQueuedReplot);
}

void FormatRangesPlot::leftClicked(QPoint at) {
    if (const auto k = binAt(at)) Q_EMIT binClicked(*k);
}

}  // namespace ampscope::ui
