#include "views/GradientHistogramView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "plots/HeatmapPlot.h"
#include "precision/Fp16Limits.h"
#include "probes/ProbeRecords.h"
#include "views/ChooserRow.h"
#include "plots/HistogramSlicePlot.h"
#include "plots/PowerOfTwoText.h"
#include "run/EventSchema.h"
#include "views/ParsedRecord.h"

namespace ampscope::ui {

namespace {

const QColor kFlushFill(220, 50, 50, 40);
const QColor kSubnormalFill(230, 180, 0, 45);
const QColor kScaledLineColour(20, 90, 200);

QString seriesKey(const QString& kind, const QString& layer) {
    return kind + QLatin1Char('/') + layer;
}

QString kindName(std::string_view kind) {
    return QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()));
}

// The weight of a histogram when its series is thinned: steps with NaN/Inf stay in view.
double nonFiniteElements(const ExponentHistogram& h) {
    return static_cast<double>(h.nan + h.posInf + h.negInf);
}

}  // namespace

QStringList GradientHistogramView::kinds() {
    return {kindName(probe_kind::kParamGrad), kindName(probe_kind::kParamGradScaled),
            kindName(probe_kind::kActivationGrad)};
}

QString GradientHistogramView::kindText(const QString& kind) {
    if (kind == kindName(probe_kind::kParamGrad)) return tr("parameter gradients, unscaled (fp32)");
    if (kind == kindName(probe_kind::kParamGradScaled))
        return tr("parameter gradients, scaled (as fp16 holds them)");
    if (kind == kindName(probe_kind::kActivationGrad))
        return tr("activation gradients (at the layer's output)");
    return kind;
}

QStringList GradientHistogramView::namedRows() {
    return {QStringLiteral("0"), QStringLiteral("NaN"), QStringLiteral("+Inf"),
            QStringLiteral("-Inf")};
}

GradientHistogramView::GradientHistogramView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("gradientHistograms"));

    layerBox_ = new QComboBox(this);
    layerBox_->setObjectName(QStringLiteral("histogramLayer"));
    layerBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    layerBox_->setToolTip(tr("The layer whose gradients are shown"));
    kindBox_ = new QComboBox(this);
    kindBox_->setObjectName(QStringLiteral("histogramKind"));
    for (const QString& kind : kinds()) kindBox_->addItem(kindText(kind), kind);
    kindBox_->setToolTip(
        tr("Unscaled: the gradients the optimizer sees (fp32). Scaled: multiplied by the loss "
           "scale, as backward produced them in fp16. Activation gradients: what arrives at the "
           "layer's output in backward."));
    noteLabel_ = makeDockNote(this, QStringLiteral("histogramNote"));
    QHBoxLayout* controls = makeChooserRow(
        this, {{tr("Layer:"), layerBox_}, {tr("Gradients:"), kindBox_}}, noteLabel_);

    heatmap_ = new HeatmapPlot(this);
    heatmap_->setObjectName(QStringLiteral("gradient-histogram"));
    HeatmapLayout layout;
    layout.firstBinY = kMinExponent;
    layout.valueBins = kExponentBins;
    layout.extraRows = namedRows();
    layout.yLabel = QStringLiteral("log\u2082 |gradient|");
    layout.colourLabel = tr("elements (log colour)");
    heatmap_->configure(layout);
    // The bands reach the ends of the value rows; their names sit at the edges that face
    // the data, so they stay in view when the map shows only where the data is.
    bandIds_.push_back(
        heatmap_->addBand(kMinExponent, fp16::kFlushedAtOrBelowLog2, QString(), kFlushFill));
    bandIds_.push_back(heatmap_->addBand(fp16::kFlushedAtOrBelowLog2, fp16::kSmallestNormalLog2,
                                         QString(), kSubnormalFill));
    bandIds_.push_back(
        heatmap_->addBand(fp16::kOverflowLog2, kMaxExponent + 1, QString(), kFlushFill));
    addBandName(fp16::kFlushedAtOrBelowLog2, Qt::AlignTop,
                tr("fp16 \u2192 0 (\u2264 %1)").arg(powerOfTwoText(fp16::kFlushedAtOrBelowLog2)),
                kFlushFill);
    addBandName(fp16::kSmallestNormalLog2, Qt::AlignTop, tr("fp16 subnormal"), kSubnormalFill);
    addBandName(fp16::kOverflowLog2, Qt::AlignBottom,
                tr("fp16 \u2192 inf (\u2265 %1)").arg(fp16::kOverflowBound), kFlushFill);
    connect(heatmap_, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* event) { pressPixel_ = event->position().toPoint(); });
    connect(heatmap_, &QCustomPlot::mouseRelease, this, &GradientHistogramView::onHeatmapClick);
    heatmap_->setToolTip(QString());

    stepSlider_ = new QSlider(Qt::Horizontal, this);
    stepSlider_->setObjectName(QStringLiteral("histogramStep"));
    stepSlider_->setToolTip(
        tr("The probe step the bars show (or click a heatmap column); at the right end the "
           "bars follow the newest step"));
    stepLabel_ = new QLabel(this);
    stepLabel_->setMinimumWidth(
        stepLabel_->fontMetrics().horizontalAdvance(tr("step 000000 (newest)")));
    slice_ = new HistogramSlicePlot(this);
    connect(stepSlider_, &QSlider::valueChanged, this, [this](int index) {
        if (updatingControls_) return;
        following_ = index == stepSlider_->maximum();
        updateSlice();
    });

    auto* sliceBox = new QWidget(this);
    auto* sliceLayout = new QVBoxLayout(sliceBox);
    sliceLayout->setContentsMargins(0, 0, 0, 0);
    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(new QLabel(tr("Slice at:"), sliceBox));
    sliderRow->addWidget(stepSlider_, 1);
    sliderRow->addWidget(stepLabel_);
    sliceLayout->addLayout(sliderRow);
    sliceLayout->addWidget(slice_, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(heatmap_);
    splitter->addWidget(sliceBox);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({550, 450});  // scaled to the width it gets

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(splitter, 1);

    connect(layerBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (updatingControls_) return;
        userChoseLayer_ = true;
        rebuildHeatmap();
    });
    connect(kindBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (updatingControls_) return;
        if (!userChoseLayer_ || !shownSeries()) chooseDefaultLayer();
        rebuildHeatmap();
    });
    updatePlaceholder();
    updateSlider();
    updateSlice();
}

void GradientHistogramView::addBandName(double y, Qt::Alignment side, const QString& name,
                                        const QColor& fill) {
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

void GradientHistogramView::beginRun(const RunContext& context) {
    probesEvery_ = context.config.probes.every;
    layers_.clear();
    series_.clear();
    scaleChanges_.clear();
    lastStep_ = 0;
    heatmapStale_ = false;
    following_ = true;
    userChoseLayer_ = false;
    layersChanged_ = true;
    dataChanged_ = true;
    rebuildLayerChooser();
    rebuildHeatmap();
}

void GradientHistogramView::appendSteps(const std::vector<StepMetrics>& steps) {
    for (const StepMetrics& m : steps) {
        if (m.step <= lastStep_) continue;
        lastStep_ = m.step;
        // Only the steps where the scale changed: it holds until the next change.
        const bool same =
            !scaleChanges_.empty() && (m.scale == scaleChanges_.back() ||
                                       (std::isnan(m.scale) && std::isnan(scaleChanges_.back())));
        if (!same) *scaleChanges_.entryFor(m.step) = m.scale;  // m.step is a new last step
    }
}

void GradientHistogramView::takeRecord(const nlohmann::json& record) {
    const std::string type = recordType(record);
    if (type == event_type::kRunInfo) {
        layersChanged_ |= layers_.takeRunInfo(record);
        return;
    }
    if (type != probe_record_type::kHistogram) return;
    auto read = parsedRecord("gradient histograms", record, histogramRecordFromJson);
    if (!read) return;
    HistogramRecord& parsed = *read;
    const QString layer = QString::fromStdString(parsed.layer);
    const QString kind = QString::fromStdString(parsed.kind);
    layersChanged_ |= layers_.add(layer);
    const QString key = seriesKey(kind, layer);
    HistogramSeries& s =
        series_.try_emplace(key, kMaxKeptProbeSteps, nonFiniteElements).first->second;
    const int thinningsBefore = s.thinnings();
    bool opened = false;
    ExponentHistogram* slot = s.entryFor(parsed.step, &opened);
    if (!opened) return;  // a step this series already has or is past: a replay
    *slot = std::move(parsed.histogram);
    // The heatmap's columns index the kept records: redraw it from what is left.
    if (s.thinnings() != thinningsBefore && key == seriesKey(this->kind(), this->layer()))
        heatmapStale_ = true;
    dataChanged_ = true;
}

void GradientHistogramView::endOfBatch() {
    if (layersChanged_) {
        rebuildLayerChooser();
        layersChanged_ = false;
    }
    if (!userChoseLayer_ && !shownSeries()) {
        const QString before = layer();
        chooseDefaultLayer();
        if (layer() != before) rebuildHeatmap();
    }
    if (heatmapStale_) {
        heatmapStale_ = false;
        dataChanged_ = false;
        rebuildHeatmap();
    }
    if (dataChanged_) {
        appendNewColumns();
        dataChanged_ = false;
    }
    updateLimitLines();
    updateFocusRange();
    updateSlider();
    updateSlice();
    updatePlaceholder();
    heatmap_->setStepExtent(lastStep_);
    heatmap_->refresh();
}

QString GradientHistogramView::layer() const {
    return layerBox_->currentText();
}

QString GradientHistogramView::kind() const {
    return kindBox_->currentData().toString();
}

void GradientHistogramView::setLayer(const QString& layer) {
    const int index = layerBox_->findText(layer);
    if (index >= 0) layerBox_->setCurrentIndex(index);  // rebuilds through the signal
}

void GradientHistogramView::setKind(const QString& kind) {
    const int index = kindBox_->findData(kind);
    if (index >= 0) kindBox_->setCurrentIndex(index);
}

const GradientHistogramView::HistogramSeries* GradientHistogramView::shownSeries() const {
    auto it = series_.find(seriesKey(kind(), layer()));
    return it == series_.end() || it->second.empty() ? nullptr : &it->second;
}

void GradientHistogramView::rebuildLayerChooser() {
    const QString current = layer();
    updatingControls_ = true;
    layerBox_->clear();
    layerBox_->addItems(layers_.names());
    const int index = layerBox_->findText(current);
    layerBox_->setCurrentIndex(index >= 0 ? index : (layerBox_->count() ? 0 : -1));
    updatingControls_ = false;
}

void GradientHistogramView::chooseDefaultLayer() {
    // The first layer, in model order, that has this kind of gradient.
    for (const QString& name : layers_.names()) {
        if (series_.count(seriesKey(kind(), name))) {
            updatingControls_ = true;
            layerBox_->setCurrentIndex(layerBox_->findText(name));
            updatingControls_ = false;
            return;
        }
    }
}

std::vector<double> GradientHistogramView::columnOf(const ExponentHistogram& h) {
    std::vector<double> column(static_cast<std::size_t>(kExponentBins) + 4);
    for (int i = 0; i < kExponentBins; ++i)
        column[static_cast<std::size_t>(i)] =
            static_cast<double>(h.counts[static_cast<std::size_t>(i)]);
    column.front() += static_cast<double>(h.below);
    column[kExponentBins - 1] += static_cast<double>(h.above);
    column[kExponentBins + 0] = static_cast<double>(h.zero);
    column[kExponentBins + 1] = static_cast<double>(h.nan);
    column[kExponentBins + 2] = static_cast<double>(h.posInf);
    column[kExponentBins + 3] = static_cast<double>(h.negInf);
    return column;
}

void GradientHistogramView::rebuildHeatmap() {
    heatmap_->clear();
    shownColumns_ = 0;
    lowestBin_ = kMaxExponent + 1;
    highestBin_ = kMinExponent - 1;
    sliceStale_ = true;
    appendNewColumns();
    updateLimitLines();
    updateFocusRange();
    updateSlider();
    updateSlice();
    updatePlaceholder();
    heatmap_->resetView();
}

void GradientHistogramView::appendNewColumns() {
    const HistogramSeries* s = shownSeries();
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

void GradientHistogramView::updateFocusRange() {
    // The bins that hold data, and every limit drawn (the bands' edges, the dashed lines),
    // with a little room; the whole -64..32 range squeezes the data into a strip.
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
    heatmap_->setFocusYRange(low, high);
}

double GradientHistogramView::scaleAt(int64_t step) const {
    const std::ptrdiff_t index = scaleChanges_.indexAtOrBefore(step);
    return index < 0 ? 1.0 : scaleChanges_.entry(static_cast<std::size_t>(index));
}

void GradientHistogramView::updateLimitLines() {
    const bool unscaled = kind() == kindName(probe_kind::kParamGrad);
    // The latest step's scale.
    const double scale = scaleChanges_.empty() ? 1.0 : scaleChanges_.back();
    const bool usable = std::isfinite(scale) && scale > 0.0;
    const double log2Scale = usable ? std::log2(scale) : 0.0;
    const bool show = unscaled && usable && log2Scale != 0.0;
    if (!show || log2Scale != shownLog2Scale_) {
        for (int id : scaledLineIds_) heatmap_->removeOverlay(id);
        scaledLineIds_.clear();
    }
    if (show && scaledLineIds_.empty()) {
        const double limits[3] = {fp16::kFlushedAtOrBelowLog2, fp16::kSmallestNormalLog2,
                                  fp16::kOverflowLog2};
        for (double limit : limits)
            scaledLineIds_.push_back(heatmap_->addLine(
                limit - log2Scale,
                tr("%1 \u00F7 scale %2").arg(powerOfTwoText(limit), powerOfTwoText(log2Scale)),
                kScaledLineColour));
        shownLog2Scale_ = log2Scale;
    }
    const QString k = kind();
    if (unscaled && show)
        noteLabel_->setText(
            tr("Dashed: the fp16 limits \u00F7 the loss scale %1 (step %2). Unscaled gradients "
               "below the lowest line flush to 0 once scaled.")
                .arg(powerOfTwoText(log2Scale))
                .arg(lastStep_));
    else if (unscaled)
        noteLabel_->setText(
            tr("Loss scale 1: these are the values fp16 holds; the bands apply "
               "as drawn."));
    else if (k == kindName(probe_kind::kParamGradScaled))
        noteLabel_->setText(
            tr("As fp16 holds them (\u00D7 loss scale): the bands apply as drawn."));
    else
        noteLabel_->setText(
            tr("Gradient arriving at the layer's output in backward (scaled as "
               "the loss was): the bands apply as drawn."));
}

std::vector<double> GradientHistogramView::scaledLimitYs() const {
    std::vector<double> ys;
    for (int id : scaledLineIds_) ys.push_back(heatmap_->overlayY(id));
    return ys;
}

std::vector<std::pair<double, double>> GradientHistogramView::bandYs() const {
    std::vector<std::pair<double, double>> ys;
    for (int id : bandIds_) ys.emplace_back(heatmap_->overlayY(id), heatmap_->overlayHighY(id));
    return ys;
}

void GradientHistogramView::updateSlider() {
    const HistogramSeries* s = shownSeries();
    const int count = s ? static_cast<int>(s->size()) : 0;
    updatingControls_ = true;
    const std::optional<int64_t> wanted = selectedStep_;
    stepSlider_->setEnabled(count > 1);
    stepSlider_->setRange(0, std::max(0, count - 1));
    if (following_ || !wanted || !s) {
        stepSlider_->setValue(stepSlider_->maximum());
    } else {
        // The probe step at or before the one chosen (the first, if none is).
        const std::ptrdiff_t index = std::max<std::ptrdiff_t>(0, s->indexAtOrBefore(*wanted));
        stepSlider_->setValue(static_cast<int>(index));
    }
    updatingControls_ = false;
}

void GradientHistogramView::updateSlice() {
    const HistogramSeries* s = shownSeries();
    if (!s) {
        selectedStep_.reset();
        stepLabel_->setText(QString());
        const QString why = heatmapPlaceholderText();
        if (slice_->hasSlice() || why != sliceEmptyText_) slice_->clearSlice(why);
        sliceEmptyText_ = why;
        return;
    }
    const auto index = static_cast<std::size_t>(
        std::clamp(stepSlider_->value(), 0, static_cast<int>(s->size()) - 1));
    const int64_t step = s->step(index);
    selectedStep_ = step;
    stepLabel_->setText(following_ ? tr("step %1 (newest)").arg(step) : tr("step %1").arg(step));
    if (slice_->hasSlice() && slice_->step() == step && !sliceStale_) return;
    HistogramSlicePlot::Slice slice;
    slice.step = step;
    slice.layer = layer();
    slice.kindText = kindText(kind());
    slice.histogram = s->entry(index);
    const double scale = scaleAt(step);
    if (kind() == kindName(probe_kind::kParamGrad) && std::isfinite(scale) && scale > 0.0 &&
        scale != 1.0)
        slice.log2Scale = std::log2(scale);
    slice_->setSlice(slice);
    sliceStale_ = false;
}

void GradientHistogramView::selectStep(int64_t step) {
    following_ = false;
    selectedStep_ = step;
    updateSlider();
    updateSlice();
}

std::optional<int64_t> GradientHistogramView::selectedStep() const {
    return selectedStep_;
}

QString GradientHistogramView::heatmapPlaceholderText() const {
    if (probesEvery_ <= 0)
        return tr("Probes are off in this run (probes.every = 0): no histograms");
    if (layers_.isEmpty() && series_.empty())
        return tr("No histograms yet: the probes run at step 1 and every %1 steps")
            .arg(probesEvery_);
    if (!shownSeries()) {
        if (kind() == kindName(probe_kind::kActivationGrad))
            return tr("No activation gradients recorded for %1").arg(layer());
        return tr("%1 has no %2 (a layer without parameters, or not probed yet)")
            .arg(layer(), kindText(kind()));
    }
    return QString();
}

void GradientHistogramView::updatePlaceholder() {
    heatmap_->setPlaceholder(heatmapPlaceholderText());
}

void GradientHistogramView::onHeatmapClick(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const QPoint at = event->position().toPoint();
    if ((at - pressPixel_).manhattanLength() > 3) return;  // a drag (pan), not a click
    const int column = heatmap_->columnAt(heatmap_->xAxis->pixelToCoord(at.x()));
    if (column < 0) return;
    selectStep(heatmap_->stepOfColumn(column));
}

}  // namespace ampscope::ui
