#include "views/HistogramMapPane.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "plots/HeatmapPlot.h"
#include "plots/PowerOfTwoText.h"
#include "precision/Fp16Limits.h"
#include "probes/ProbeRecords.h"
#include "runset/RunModel.h"
#include "views/RunTitle.h"

namespace ampscope::ui {

namespace {

const QColor kFlushFill(220, 50, 50, 40);
const QColor kSubnormalFill(230, 180, 0, 45);
const QColor kScaledLineColour(20, 90, 200);

QString unscaledKind() {
    return QString::fromUtf8(probe_kind::kParamGrad.data(), static_cast<qsizetype>(probe_kind::kParamGrad.size()));
}

}  // namespace

HistogramMapPane::HistogramMapPane(QWidget* parent) : QWidget(parent) {
    title_ = makeRunTitle(this, QStringLiteral("histogramRunTitle"));
    heatmap_ = new HeatmapPlot(this);
    heatmap_->setObjectName(QStringLiteral("gradient-histogram"));
    heatmap_->setMinimumSize(220, 200);
    HeatmapLayout layout;
    layout.firstBinY = kMinExponent;
    layout.valueBins = kExponentBins;
    layout.extraRows = {QStringLiteral("0"), QStringLiteral("NaN"), QStringLiteral("+Inf"), QStringLiteral("-Inf")};
    layout.yLabel = QStringLiteral("log\u2082 |gradient|");
    layout.colourLabel = tr("elements (log colour)");
    layout.capacity = 1024;
    heatmap_->configure(layout);
    // The bands reach the ends of the value rows; their names sit at the edges that face
    // the data, so they stay in view when the map shows only where the data is.
    bandIds_.push_back(heatmap_->addBand(kMinExponent, fp16::kFlushedAtOrBelowLog2, QString(), kFlushFill));
    bandIds_.push_back(
        heatmap_->addBand(fp16::kFlushedAtOrBelowLog2, fp16::kSmallestNormalLog2, QString(), kSubnormalFill));
    bandIds_.push_back(heatmap_->addBand(fp16::kOverflowLog2, kMaxExponent + 1, QString(), kFlushFill));
    addBandName(fp16::kFlushedAtOrBelowLog2, Qt::AlignTop,
                tr("fp16 \u2192 0 (\u2264 %1)").arg(powerOfTwoText(fp16::kFlushedAtOrBelowLog2)), kFlushFill);
    addBandName(fp16::kSmallestNormalLog2, Qt::AlignTop, tr("fp16 subnormal"), kSubnormalFill);
    addBandName(fp16::kOverflowLog2, Qt::AlignBottom, tr("fp16 \u2192 inf (\u2265 %1)").arg(fp16::kOverflowBound),
                kFlushFill);
    connect(heatmap_, &HeatmapPlot::columnClicked, this, &HistogramMapPane::columnClicked);
    heatmap_->setToolTip(QString());
    auto* layoutBox = new QVBoxLayout(this);
    layoutBox->setContentsMargins(0, 0, 0, 0);
    layoutBox->setSpacing(1);
    layoutBox->addWidget(title_);
    layoutBox->addWidget(heatmap_, 1);
    title_->hide();
}

void HistogramMapPane::addBandName(double y, Qt::Alignment side, const QString& name, const QColor& fill) {
    QCPAxisRect* map = heatmap_->xAxis->axisRect();
    auto* text = new QCPItemText(heatmap_);
    text->setClipAxisRect(map);
    text->position->setAxisRect(map);
    text->position->setAxes(heatmap_->xAxis, heatmap_->yAxis);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    text->position->setCoords(0.01, y);
    text->setPositionAlignment(Qt::AlignLeft | side);
    text->setText(name);
    QColor ink = fill.darker(300);
    ink.setAlpha(255);
    text->setColor(ink);
    text->setPadding(QMargins(2, 1, 2, 1));
}

void HistogramMapPane::show(const RunModel* run, const QString& kind, const QString& layer, bool titled) {
    run_ = run;
    kind_ = kind;
    layer_ = layer;
    showRunTitle(title_, run);
    title_->setVisible(titled && run);
    heatmap_->clear();
    shownColumns_ = 0;
    const HistogramSeries::Series* s = run ? run->histograms().series(kind, layer) : nullptr;
    thinningsSeen_ = s ? s->thinnings() : 0;
    lowestBin_ = kMaxExponent + 1;
    highestBin_ = kMinExponent - 1;
    appendNewColumns();
    updateLimitLines();
    updatePlaceholder();
    heatmap_->setStepExtent(run ? run->histograms().lastStep() : 0);
    heatmap_->resetView();
}

void HistogramMapPane::update() {
    if (!run_) return;
    const HistogramSeries::Series* s = run_->histograms().series(kind_, layer_);
    if (s && s->thinnings() != thinningsSeen_) {
        show(run_, kind_, layer_, title_->isVisible());  // the columns index the kept records
        return;
    }
    appendNewColumns();
    updateLimitLines();
    updatePlaceholder();
    heatmap_->setStepExtent(run_->histograms().lastStep());
}

std::vector<double> HistogramMapPane::columnOf(const ExponentHistogram& h) {
    std::vector<double> column(static_cast<std::size_t>(kExponentBins) + 4);
    for (int i = 0; i < kExponentBins; ++i)
        column[static_cast<std::size_t>(i)] = static_cast<double>(h.counts[static_cast<std::size_t>(i)]);
    column.front() += static_cast<double>(h.below);
    column[kExponentBins - 1] += static_cast<double>(h.above);
    column[kExponentBins + 0] = static_cast<double>(h.zero);
    column[kExponentBins + 1] = static_cast<double>(h.nan);
    column[kExponentBins + 2] = static_cast<double>(h.posInf);
    column[kExponentBins + 3] = static_cast<double>(h.negInf);
    return column;
}

void HistogramMapPane::appendNewColumns() {
    const HistogramSeries::Series* s = run_ ? run_->histograms().series(kind_, layer_) : nullptr;
    if (!s) return;
    for (; shownColumns_ < s->size(); ++shownColumns_) {
        const ExponentHistogram& h = s->entry(shownColumns_);
        heatmap_->appendColumn(s->step(shownColumns_), columnOf(h));
        for (int i = 0; i < kExponentBins; ++i) {
            if (h.counts[static_cast<std::size_t>(i)] == 0) continue;
            lowestBin_ = std::min(lowestBin_, kMinExponent + i);
            highestBin_ = std::max(highestBin_, kMinExponent + i);
        }
        if (h.below) lowestBin_ = kMinExponent;
        if (h.above) highestBin_ = kMaxExponent;
    }
}

void HistogramMapPane::updateLimitLines() {
    const double scale = run_ ? run_->histograms().latestScale() : 1.0;
    const bool usable = std::isfinite(scale) && scale > 0.0;
    const double log2Scale = usable ? std::log2(scale) : 0.0;
    const bool show = kind_ == unscaledKind() && usable && log2Scale != 0.0;
    if (!show || log2Scale != shownLog2Scale_) {
        for (int id : scaledLineIds_) heatmap_->removeOverlay(id);
        scaledLineIds_.clear();
    }
    if (show && scaledLineIds_.empty()) {
        for (double limit : {double(fp16::kFlushedAtOrBelowLog2), double(fp16::kSmallestNormalLog2),
                             double(fp16::kOverflowLog2)})
            scaledLineIds_.push_back(heatmap_->addLine(
                limit - log2Scale, tr("%1 \u00F7 scale %2").arg(powerOfTwoText(limit), powerOfTwoText(log2Scale)),
                kScaledLineColour));
        shownLog2Scale_ = log2Scale;
    }
}

std::pair<double, double> HistogramMapPane::wantedYRange() const {
    // The bins that hold data, and every limit drawn (the bands' edges, the dashed
    // lines), with a little room; the whole -64..32 range squeezes the data into a strip.
    double low = fp16::kFlushedAtOrBelowLog2 - 6.0;  // room for the band's name
    double high = fp16::kOverflowLog2 + 3.0;
    if (lowestBin_ <= highestBin_) {
        low = std::min(low, lowestBin_ - 3.0);
        high = std::max(high, highestBin_ + 4.0);
    }
    for (double y : scaledLimitYs()) {
        low = std::min(low, y - 3.0);
        high = std::max(high, y + 3.0);
    }
    return {low, high};
}

void HistogramMapPane::applyShared(double lowY, double highY, double lowColour, double highColour) {
    heatmap_->setFocusYRange(lowY, highY);
    heatmap_->setColourRange(lowColour, highColour);
    heatmap_->refresh();
}

std::vector<double> HistogramMapPane::scaledLimitYs() const {
    std::vector<double> ys;
    for (int id : scaledLineIds_) ys.push_back(heatmap_->overlayY(id));
    return ys;
}

std::vector<std::pair<double, double>> HistogramMapPane::bandYs() const {
    std::vector<std::pair<double, double>> ys;
    for (int id : bandIds_) ys.emplace_back(heatmap_->overlayY(id), heatmap_->overlayHighY(id));
    return ys;
}

QString HistogramMapPane::placeholderText() const {
    return heatmap_->placeholderText();
}

void HistogramMapPane::updatePlaceholder() {
    QString why;
    const HistogramSeries* h = run_ ? &run_->histograms() : nullptr;
    if (!h)
        why = tr("No run yet");
    else if (h->probesEvery() <= 0)
        why = tr("Probes are off in this run (probes.every = 0): no histograms");
    else if (h->empty())
        why = tr("No histograms yet: the probes run at step 1 and every %1 steps").arg(h->probesEvery());
    else if (!h->series(kind_, layer_))
        why = kind_ == QStringLiteral("activation_grad")
                  ? tr("No activation gradients recorded for %1").arg(layer_)
                  : tr("%1 has none of these gradients (a layer without parameters, or not probed yet)").arg(layer_);
    heatmap_->setPlaceholder(why);
}

}  // namespace ampscope::ui
