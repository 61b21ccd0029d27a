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
#include "probes/ProbeRecords.h"
#include "views/Fp16Limits.h"
#include "views/HistogramSlicePlot.h"
#include "views/PowerOfTwoText.h"

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
    noteLabel_ = new QLabel(this);
    noteLabel_->setObjectName(QStringLiteral("histogramNote"));
    noteLabel_->setWordWrap(true);
    noteLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Layer:"), this));
    controls->addWidget(layerBox_);
    controls->addSpacing(8);
    controls->addWidget(new QLabel(tr("Gradients:"), this));
    controls->addWidget(kindBox_);
    controls->addSpacing(8);
    controls->addWidget(noteLabel_, 1);

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
        heatmap_->addBand(kMinExponent, fp16_log2::kFlushedAtOrBelow, QString(), kFlushFill));
    bandIds_.push_back(heatmap_->addBand(fp16_log2::kFlushedAtOrBelow, fp16_log2::kSmallestNormal,
                                         QString(), kSubnormalFill));
    bandIds_.push_back(
        heatmap_->addBand(fp16_log2::kOverflow, kMaxExponent + 1, QString(), kFlushFill));
    addBandName(fp16_log2::kFlushedAtOrBelow, Qt::AlignTop,
                tr("fp16 \u2192 0 (\u2264 2\u207B\u00B2\u2075)"), kFlushFill);
    addBandName(fp16_log2::kSmallestNormal, Qt::AlignTop, tr("fp16 subnormal"), kSubnormalFill);
    addBandName(fp16_log2::kOverflow, Qt::AlignBottom, tr("fp16 \u2192 inf (\u2265 65520)"),
                kFlushFill);
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
    scaleSteps_.clear();
    scales_.clear();
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
        const bool same = !scales_.empty() && (m.scale == scales_.back() ||
                                               (std::isnan(m.scale) && std::isnan(scales_.back())));
        if (same) continue;
        if (scaleSteps_.size() >= kMaxKeptScaleChanges) {
            // A scale that changes on (nearly) every step: keep every second change.
            for (std::size_t i = 0; 2 * i < scaleSteps_.size(); ++i) {
                scaleSteps_[i] = scaleSteps_[2 * i];
                scales_[i] = scales_[2 * i];
            }
            scaleSteps_.resize((scaleSteps_.size() + 1) / 2);
            scales_.resize(scaleSteps_.size());
        }
        scaleSteps_.push_back(m.step);
        scales_.push_back(m.scale);
    }
}

void GradientHistogramView::thinOut(Series& s) {
    // Of each neighbouring pair keep the histogram with more non-finite elements (the
    // first when equal): the kept ones are still real steps, and NaN/Inf stay in view.
    const auto nonFinite = [](const ExponentHistogram& h) { return h.nan + h.posInf + h.negInf; };
    std::size_t kept = 0;
    for (std::size_t i = 0; i < s.steps.size(); i += 2) {
        std::size_t pick = i;
        if (i + 1 < s.steps.size() && nonFinite(s.histograms[i + 1]) > nonFinite(s.histograms[i]))
            pick = i + 1;
        s.steps[kept] = s.steps[pick];
        if (kept != pick) s.histograms[kept] = std::move(s.histograms[pick]);
        ++kept;
    }
    s.steps.resize(kept);
    s.histograms.resize(kept);
}

void GradientHistogramView::takeRecord(const nlohmann::json& record) {
    const std::string type = recordType(record);
    if (type == "run_info") {
        layersChanged_ |= layers_.takeRunInfo(record);
        return;
    }
    if (type != probe_record_type::kHistogram) return;
    HistogramRecord parsed;
    try {
        parsed = histogramRecordFromJson(record);
    } catch (const std::exception& e) {
        qWarning("gradient histograms: skipped a record: %s", e.what());
        return;
    }
    const QString layer = QString::fromStdString(parsed.layer);
    const QString kind = QString::fromStdString(parsed.kind);
    layersChanged_ |= layers_.add(layer);
    const QString key = seriesKey(kind, layer);
    Series& s = series_[key];
    if (!s.steps.empty() && parsed.step <= s.steps.back()) return;  // out of order: a replay
    if (s.steps.size() >= kMaxKeptProbeSteps) {
        thinOut(s);
        // The heatmap's columns index the kept records: redraw it from what is left.
        if (key == seriesKey(this->kind(), this->layer())) heatmapStale_ = true;
    }
    s.steps.push_back(parsed.step);
    s.histograms.push_back(std::move(parsed.histogram));
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

const GradientHistogramView::Series* GradientHistogramView::shownSeries() const {
    auto it = series_.find(seriesKey(kind(), layer()));
    return it == series_.end() || it->second.steps.empty() ? nullptr : &it->second;
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
    const Series* s = shownSeries();
    if (!s) return;
    for (; shownColumns_ < s->steps.size(); ++shownColumns_) {
        const ExponentHistogram& h = s->histograms[shownColumns_];
        heatmap_->appendColumn(s->steps[shownColumns_], columnOf(h));
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
    double low = fp16_log2::kFlushedAtOrBelow - 6.0;  // room for the band's name
    double high = fp16_log2::kOverflow + 3.0;
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
    auto it = std::upper_bound(scaleSteps_.begin(), scaleSteps_.end(), step);
    if (it == scaleSteps_.begin()) return 1.0;
    return scales_[static_cast<std::size_t>(std::distance(scaleSteps_.begin(), it) - 1)];
}

void GradientHistogramView::updateLimitLines() {
    const bool unscaled = kind() == kindName(probe_kind::kParamGrad);
    const double scale = scales_.empty() ? 1.0 : scales_.back();  // the latest step's
    const bool usable = std::isfinite(scale) && scale > 0.0;
    const double log2Scale = usable ? std::log2(scale) : 0.0;
    const bool show = unscaled && usable && log2Scale != 0.0;
    if (!show || log2Scale != shownLog2Scale_) {
        for (int id : scaledLineIds_) heatmap_->removeOverlay(id);
        scaledLineIds_.clear();
    }
    if (show && scaledLineIds_.empty()) {
        const double limits[3] = {fp16_log2::kFlushedAtOrBelow, fp16_log2::kSmallestNormal,
                                  fp16_log2::kOverflow};
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
    const Series* s = shownSeries();
    const int count = s ? static_cast<int>(s->steps.size()) : 0;
    updatingControls_ = true;
    const std::optional<int64_t> wanted = selectedStep_;
    stepSlider_->setEnabled(count > 1);
    stepSlider_->setRange(0, std::max(0, count - 1));
    if (following_ || !wanted || !s) {
        stepSlider_->setValue(stepSlider_->maximum());
    } else {
        // The probe step at or before the one chosen (the first, if none is).
        auto it = std::upper_bound(s->steps.begin(), s->steps.end(), *wanted);
        const int index =
            it == s->steps.begin() ? 0 : static_cast<int>(std::distance(s->steps.begin(), it)) - 1;
        stepSlider_->setValue(index);
    }
    updatingControls_ = false;
}

void GradientHistogramView::updateSlice() {
    const Series* s = shownSeries();
    if (!s) {
        selectedStep_.reset();
        stepLabel_->setText(QString());
        const QString why = heatmapPlaceholderText();
        if (slice_->hasSlice() || why != sliceEmptyText_) slice_->clearSlice(why);
        sliceEmptyText_ = why;
        return;
    }
    const auto index = static_cast<std::size_t>(
        std::clamp(stepSlider_->value(), 0, static_cast<int>(s->steps.size()) - 1));
    const int64_t step = s->steps[index];
    selectedStep_ = step;
    stepLabel_->setText(following_ ? tr("step %1 (newest)").arg(step) : tr("step %1").arg(step));
    if (slice_->hasSlice() && slice_->step() == step && !sliceStale_) return;
    HistogramSlicePlot::Slice slice;
    slice.step = step;
    slice.layer = layer();
    slice.kindText = kindText(kind());
    slice.histogram = s->histograms[index];
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
    if (!placeholder_) {
        placeholder_ = new QCPItemText(heatmap_);
        placeholder_->setClipAxisRect(heatmap_->xAxis->axisRect());
        placeholder_->position->setAxisRect(heatmap_->xAxis->axisRect());
        placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
        placeholder_->position->setCoords(0.5, 0.5);
        placeholder_->setPositionAlignment(Qt::AlignCenter);
        placeholder_->setColor(QColor(90, 90, 90));
        placeholder_->setBrush(QColor(255, 255, 255, 220));
        placeholder_->setPadding(QMargins(6, 3, 6, 3));
    }
    const QString text = heatmapPlaceholderText();
    placeholder_->setText(text);
    placeholder_->setVisible(!text.isEmpty());
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
