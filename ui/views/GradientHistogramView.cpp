#include "views/GradientHistogramView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "plots/HeatmapPlot.h"
#include "plots/HistogramSlicePlot.h"
#include "plots/PowerOfTwoText.h"
#include "probes/ProbeRecords.h"
#include "runset/RunSet.h"
#include "views/ChooserRow.h"
#include "views/HistogramMapPane.h"

namespace ampscope::ui {

namespace {

QString kindName(std::string_view kind) {
    return QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()));
}

constexpr RunChanges kHistogramData{RunChange::Histograms, RunChange::Steps};

}  // namespace

QString GradientHistogramView::kindText(const QString& kind) {
    if (kind == kindName(probe_kind::kParamGrad)) return tr("parameter gradients, unscaled (fp32)");
    if (kind == kindName(probe_kind::kParamGradScaled)) return tr("parameter gradients, scaled (as fp16 holds them)");
    if (kind == kindName(probe_kind::kActivationGrad)) return tr("activation gradients (at the layer's output)");
    return kind;
}

QStringList GradientHistogramView::namedRows() {
    return {QStringLiteral("0"), QStringLiteral("NaN"), QStringLiteral("+Inf"), QStringLiteral("-Inf")};
}

GradientHistogramView::GradientHistogramView(RunSet* set, QWidget* parent) : QWidget(parent), set_(set) {
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
    sliceSwitch_ = new QCheckBox(tr("Slice"), this);
    sliceSwitch_->setObjectName(QStringLiteral("histogramSliceSwitch"));
    sliceSwitch_->setToolTip(tr("One step's histogram of the focused run as bars, beneath the maps"));
    QHBoxLayout* controls = makeChooserRow(
        this, {{tr("Layer:"), layerBox_}, {tr("Gradients:"), kindBox_}, {QString(), sliceSwitch_}}, noteLabel_);

    stepSlider_ = new QSlider(Qt::Horizontal, this);
    stepSlider_->setObjectName(QStringLiteral("histogramStep"));
    stepSlider_->setToolTip(
        tr("The probe step the bars show (or click a heatmap column); at the right end the "
           "bars follow the newest step"));
    stepLabel_ = new QLabel(this);
    stepLabel_->setMinimumWidth(stepLabel_->fontMetrics().horizontalAdvance(tr("step 000000 (newest)")));
    slice_ = new HistogramSlicePlot(this);
    connect(stepSlider_, &QSlider::valueChanged, this, [this](int index) {
        if (updatingControls_) return;
        following_ = index == stepSlider_->maximum();
        updateSlice();
    });

    auto* sliceBox = new QWidget(this);
    sliceBox_ = sliceBox;
    auto* sliceLayout = new QVBoxLayout(sliceBox);
    sliceLayout->setContentsMargins(0, 0, 0, 0);
    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(new QLabel(tr("Slice at:"), sliceBox));
    sliderRow->addWidget(stepSlider_, 1);
    sliderRow->addWidget(stepLabel_);
    sliceLayout->addLayout(sliderRow);
    sliceLayout->addWidget(slice_, 1);

    auto* panesBox = new QWidget(this);
    panesLayout_ = new QHBoxLayout(panesBox);
    panesLayout_->setContentsMargins(0, 0, 0, 0);
    splitter_ = new QSplitter(Qt::Horizontal, this);
    splitter_->setChildrenCollapsible(false);
    splitter_->addWidget(panesBox);
    splitter_->addWidget(sliceBox);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    splitter_->setSizes({550, 450});  // scaled to the width it gets

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(splitter_, 1);

    connect(layerBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (updatingControls_) return;
        userChoseLayer_ = true;
        showChoice();
    });
    connect(kindBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (updatingControls_) return;
        if (!userChoseLayer_ || !focusedSeries()) chooseDefaultLayer();
        showChoice();
    });
    connect(sliceSwitch_, &QCheckBox::toggled, sliceBox_, &QWidget::setVisible);
    connect(set_, &RunSet::changed, this, &GradientHistogramView::onChanged);
    rebuildPanes();
}

HeatmapPlot* GradientHistogramView::heatmap() const {
    return panes_.front()->heatmap();
}

HistogramMapPane* GradientHistogramView::pane(int index) const {
    return index >= 0 && index < paneCount() ? panes_[static_cast<std::size_t>(index)] : nullptr;
}

QString GradientHistogramView::layer() const {
    return layerBox_->currentText();
}

QString GradientHistogramView::kind() const {
    return kindBox_->currentData().toString();
}

void GradientHistogramView::setLayer(const QString& layer) {
    const int index = layerBox_->findText(layer);
    if (index >= 0) layerBox_->setCurrentIndex(index);  // shows it through the signal
}

void GradientHistogramView::setKind(const QString& kind) {
    const int index = kindBox_->findData(kind);
    if (index >= 0) kindBox_->setCurrentIndex(index);
}

const HistogramSeries::Series* GradientHistogramView::focusedSeries() const {
    const RunModel* run = panes_.front()->run();
    return run ? run->histograms().series(kind(), layer()) : nullptr;
}

void GradientHistogramView::onChanged(RunId run, RunChanges what) {
    if (what & kShownRunsChange) {
        rebuildPanes();
        return;
    }
    if (!(what & kHistogramData) || !set_->isShown(run)) return;
    if (what & RunChange::Histograms) rebuildLayerChooser();
    if (!userChoseLayer_ && !focusedSeries()) chooseDefaultLayer();
    if (panes_.front()->layer() != layer() || panes_.front()->kind() != kind()) {
        showChoice();  // the layer chosen for the run's first records
        return;
    }
    for (HistogramMapPane* pane : panes_)
        if (pane->run() && pane->run()->id() == run) pane->update();
    shareScales();
    updateNote();
    updateSlider();
    updateSlice();
}

void GradientHistogramView::rebuildPanes() {
    std::vector<const RunModel*> shown = set_->shownRuns();
    if (shown.size() > static_cast<std::size_t>(kMaxSideBySide)) shown.resize(kMaxSideBySide);
    const std::size_t wanted = std::max<std::size_t>(1, shown.size());
    while (panes_.size() < wanted) {
        auto* pane = new HistogramMapPane(this);
        panesLayout_->addWidget(pane, 1);
        connect(pane, &HistogramMapPane::columnClicked, this, &GradientHistogramView::selectStep);
        panes_.push_back(pane);
    }
    while (panes_.size() > wanted) {
        delete panes_.back();
        panes_.pop_back();
    }
    // Several runs: the maps side by side across the dock, the slice of the focused run
    // beneath; one run: the map and its slice side by side.
    const bool several = shown.size() > 1;
    // The slice hides before the splitter turns: turned first, for a moment its least
    // height is the maps' and the slice's stacked, and the window's layout grows the whole
    // tab group to that height and keeps it.
    sliceSwitch_->setVisible(several);
    sliceBox_->setVisible(!several || sliceSwitch_->isChecked());
    splitter_->setOrientation(several ? Qt::Vertical : Qt::Horizontal);
    for (std::size_t i = 0; i < panes_.size(); ++i)
        panes_[i]->show(i < shown.size() ? shown[i] : nullptr, kind(), layer(), shown.size() > 1);
    userChoseLayer_ = false;
    following_ = true;
    rebuildLayerChooser();
    chooseDefaultLayer();
    showChoice();
}

void GradientHistogramView::rebuildLayerChooser() {
    QStringList names;
    for (const HistogramMapPane* pane : panes_)
        if (pane->run())
            for (const QString& name : pane->run()->histograms().layers().names())
                if (!names.contains(name)) names << name;
    QStringList shown;
    for (int i = 0; i < layerBox_->count(); ++i) shown << layerBox_->itemText(i);
    if (names == shown) return;
    const QString current = layer();
    updatingControls_ = true;
    layerBox_->clear();
    layerBox_->addItems(names);
    const int index = layerBox_->findText(current);
    layerBox_->setCurrentIndex(index >= 0 ? index : (layerBox_->count() ? 0 : -1));
    updatingControls_ = false;
}

void GradientHistogramView::chooseDefaultLayer() {
    // The first layer, in model order, that has this kind of gradient in the focused run.
    const RunModel* run = panes_.front()->run();
    if (!run) return;
    for (const QString& name : run->histograms().layers().names()) {
        if (run->histograms().series(kind(), name)) {
            updatingControls_ = true;
            layerBox_->setCurrentIndex(layerBox_->findText(name));
            updatingControls_ = false;
            return;
        }
    }
}

void GradientHistogramView::showChoice() {
    for (HistogramMapPane* pane : panes_) pane->show(pane->run(), kind(), layer(), panes_.size() > 1);
    sliceStale_ = true;
    shareScales();
    updateNote();
    updateSlider();
    updateSlice();
}

void GradientHistogramView::shareScales() {
    double lowY = INFINITY, highY = -INFINITY, lowColour = 0.0, highColour = 0.0;
    for (const HistogramMapPane* pane : panes_) {
        const auto [low, high] = pane->wantedYRange();
        lowY = std::min(lowY, low);
        highY = std::max(highY, high);
        const HeatmapPlot* map = pane->heatmap();
        if (map->smallestPositive() > 0.0 && (lowColour == 0.0 || map->smallestPositive() < lowColour))
            lowColour = map->smallestPositive();
        highColour = std::max(highColour, map->largest());
    }
    for (HistogramMapPane* pane : panes_) pane->applyShared(lowY, highY, lowColour, highColour);
}

void GradientHistogramView::updateNote() {
    const QString k = kind();
    const bool unscaled = k == kindName(probe_kind::kParamGrad);
    const HistogramMapPane* focused = panes_.front();
    const double log2Scale = focused->shownLog2Scale();
    if (unscaled && log2Scale != 0.0)
        noteLabel_->setText(
            tr("Dashed: the fp16 limits \u00F7 the loss scale %1 (step %2). Unscaled gradients "
               "below the lowest line flush to 0 once scaled.")
                .arg(powerOfTwoText(log2Scale))
                .arg(focused->run() ? focused->run()->histograms().lastStep() : 0));
    else if (unscaled)
        noteLabel_->setText(tr("Loss scale 1: these are the values fp16 holds; the bands apply as drawn."));
    else if (k == kindName(probe_kind::kParamGradScaled))
        noteLabel_->setText(tr("As fp16 holds them (\u00D7 loss scale): the bands apply as drawn."));
    else
        noteLabel_->setText(tr("Gradient arriving at the layer's output in backward (scaled as the loss was): "
                               "the bands apply as drawn."));
}

std::vector<double> GradientHistogramView::scaledLimitYs() const {
    return panes_.front()->scaledLimitYs();
}

std::vector<std::pair<double, double>> GradientHistogramView::bandYs() const {
    return panes_.front()->bandYs();
}

void GradientHistogramView::updateSlider() {
    const HistogramSeries::Series* s = focusedSeries();
    const int count = s ? static_cast<int>(s->size()) : 0;
    updatingControls_ = true;
    stepSlider_->setEnabled(count > 1);
    stepSlider_->setRange(0, std::max(0, count - 1));
    if (following_ || !selectedStep_ || !s)
        stepSlider_->setValue(stepSlider_->maximum());
    else  // the probe step at or before the one chosen (the first, if none is)
        stepSlider_->setValue(static_cast<int>(std::max<std::ptrdiff_t>(0, s->indexAtOrBefore(*selectedStep_))));
    updatingControls_ = false;
}

void GradientHistogramView::updateSlice() {
    const HistogramSeries::Series* s = focusedSeries();
    if (!s) {
        selectedStep_.reset();
        stepLabel_->setText(QString());
        const QString why = panes_.front()->placeholderText();
        if (slice_->hasSlice() || why != sliceEmptyText_) slice_->clearSlice(why);
        sliceEmptyText_ = why;
        return;
    }
    const auto index =
        static_cast<std::size_t>(std::clamp(stepSlider_->value(), 0, static_cast<int>(s->size()) - 1));
    const int64_t step = s->step(index);
    selectedStep_ = step;
    stepLabel_->setText(following_ ? tr("step %1 (newest)").arg(step) : tr("step %1").arg(step));
    if (slice_->hasSlice() && slice_->step() == step && !sliceStale_) return;
    HistogramSlicePlot::Slice slice;
    slice.step = step;
    slice.layer = layer();
    slice.kindText = kindText(kind());
    slice.histogram = s->entry(index);
    const double scale = panes_.front()->run()->histograms().scaleAt(step);
    if (kind() == kindName(probe_kind::kParamGrad) && std::isfinite(scale) && scale > 0.0 && scale != 1.0)
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

}  // namespace ampscope::ui
