#include "views/FormatSweepView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <cmath>
#include <limits>
#include <algorithm>

#include "plots/CategoryHeatmapPlot.h"
#include "probes/ProbeRecords.h"
#include "runset/RunModel.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

}  // namespace

FormatSweepView::FormatSweepView(RunSet* set, QWidget* parent)
    : RunPairView(set, RunChange::FormatSweep, parent) {
    setObjectName(QStringLiteral("formatSweep"));
    metricBox_ = new QComboBox(this);
    metricBox_->setObjectName(QStringLiteral("formatSweepMetric"));
    metricBox_->addItem(tr("underflow (flushed to 0)"), static_cast<int>(Metric::Underflow));
    metricBox_->addItem(tr("saturation"), static_cast<int>(Metric::Saturation));
    metricBox_->addItem(tr("SNR"), static_cast<int>(Metric::Snr));
    metricBox_->setToolTip(
        tr("Underflow: the fraction of the elements, non-zero before, that the format makes 0. "
           "Saturation: the fraction rounded past its largest finite value. SNR: 10 log10 of "
           "signal power over rounding-error power, in dB (higher is better)."));
    tensorBox_ = new QComboBox(this);
    tensorBox_->setObjectName(QStringLiteral("formatSweepTensor"));
    tensorBox_->addItem(tr("weight gradients"), qs(format_sweep_tensor::kGradient));
    tensorBox_->addItem(tr("activations (matmul/conv inputs)"), qs(format_sweep_tensor::kActivation));
    noteLabel_ = makeDockNote(this, QStringLiteral("formatSweepNote"));
    QHBoxLayout* controls =
        makeChooserRow(this, {{tr("Show:"), metricBox_}, {tr("of the:"), tensorBox_}}, noteLabel_);

    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("formatSweepStep"));
    slider_->setRange(0, 0);
    slider_->setToolTip(tr("The sweep step shown"));
    stepLabel_ = new QLabel(this);
    stepLabel_->setObjectName(QStringLiteral("formatSweepStepLabel"));
    stepLabel_->setMinimumWidth(110);
    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(new QLabel(tr("Step:"), this));
    sliderRow->addWidget(slider_, 1);
    sliderRow->addWidget(stepLabel_);

    QHBoxLayout* sidesRow = makeSides(QStringLiteral("formatSweep"), [this](int side, QWidget* box) {
        auto* heatmap = new CategoryHeatmapPlot(box);
        heatmap->setObjectName(side == kA ? QStringLiteral("format-sweep-map") : QStringLiteral("format-sweep-map-b"));
        heatmap->setAxisLabels(tr("layer"), tr("number format"));
        heatmaps_[side] = heatmap;
        return QList<QWidget*>{heatmap};
    });

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addLayout(sidesRow, 1);
    main->addLayout(sliderRow);

    connect(metricBox_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(tensorBox_, &QComboBox::currentIndexChanged, this, [this] {
        followLatest_ = true;
        updateSlider();
        redraw();
    });
    connect(slider_, &QSlider::valueChanged, this, [this](int index) {
        if (updatingSlider_) return;
        followLatest_ = index == slider_->maximum();
        redraw();
    });
    followRuns();
}

void FormatSweepView::shownRunChanged() {
    updateSlider();
    redraw();
}

void FormatSweepView::showRuns() {
    followLatest_ = true;
    updateSlider();
    redraw();
}

FormatSweepView::Metric FormatSweepView::metric() const {
    return static_cast<Metric>(metricBox_->currentData().toInt());
}

void FormatSweepView::setMetric(Metric metric) {
    metricBox_->setCurrentIndex(metricBox_->findData(static_cast<int>(metric)));
}

QString FormatSweepView::tensor() const {
    return tensorBox_->currentData().toString();
}

void FormatSweepView::setTensor(const QString& tensor) {
    const int index = tensorBox_->findData(tensor);
    if (index >= 0) tensorBox_->setCurrentIndex(index);
}

void FormatSweepView::setStepIndex(int index) {
    slider_->setValue(index);
}

std::vector<int64_t> FormatSweepView::keptSteps() const {
    const FormatSweepSeries::TensorData* d = dataOf(kA);
    return d ? d->steps() : std::vector<int64_t>{};
}

double FormatSweepView::metricOf(const FormatSweepRecord& record, Metric metric) {
    switch (metric) {
        case Metric::Underflow: return record.underflowFraction();
        case Metric::Saturation: return record.saturatedFraction();
        case Metric::Snr: return record.snrDb();
    }
    return kNaN;
}

const FormatSweepSeries::TensorData* FormatSweepView::dataOf(int side) const {
    const RunModel* run = sideRun(side);
    return run ? run->formatSweep().data(tensor()) : nullptr;
}

void FormatSweepView::updateSlider() {
    const FormatSweepSeries::TensorData* d = dataOf(kA);
    const int count = d ? static_cast<int>(d->size()) : 0;
    // Keep the step the user chose across thinning: find it again among the kept steps.
    int index = slider_->value();
    if (d && !followLatest_ && shownStep_ >= 0)
        index = std::max<int>(0, static_cast<int>(d->indexAtOrBefore(shownStep_)));
    updatingSlider_ = true;
    slider_->setRange(0, std::max(0, count - 1));
    slider_->setValue(followLatest_ ? slider_->maximum() : std::min(index, slider_->maximum()));
    slider_->setEnabled(count > 1);
    updatingSlider_ = false;
}

void FormatSweepView::redraw() {
    const Metric which = metric();
    const FormatSweepSeries::TensorData* a = dataOf(kA);
    shownStep_ = -1;
    if (a && !a->empty())
        shownStep_ = a->step(std::min<std::size_t>(static_cast<std::size_t>(slider_->value()), a->size() - 1));
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (int side : {kA, kB}) {
        const RunModel* run = sideRun(side);
        CategoryHeatmapPlot* heatmap = heatmaps_[side];
        const FormatSweepSeries::TensorData* d = dataOf(side);
        const QStringList formats = run ? run->formatSweep().formats() : QStringList();
        QStringList rows;
        if (d)
            for (const QString& layer : run->formatSweep().layers().names()) {
                bool has = false;
                for (std::size_t i = 0; i < d->size() && !has; ++i) has = d->entry(i).count(layer) > 0;
                if (has) rows << layer;
            }
        if (rows != heatmap->rows() || formats != heatmap->columns()) heatmap->setCategories(rows, formats);
        std::vector<std::vector<double>> values(static_cast<std::size_t>(rows.size()),
                                                std::vector<double>(static_cast<std::size_t>(formats.size()), kNaN));
        // A's chosen step; B's latest kept step at or before it.
        const std::ptrdiff_t index = d && shownStep_ >= 0 ? d->indexAtOrBefore(shownStep_) : -1;
        if (index >= 0) {
            const FormatSweepSeries::StepSweep& step = d->entry(static_cast<std::size_t>(index));
            for (int r = 0; r < rows.size(); ++r) {
                const auto layer = step.find(rows[r]);
                if (layer == step.end()) continue;
                for (int c = 0; c < formats.size(); ++c) {
                    const auto cell = layer->second.find(formats[c]);
                    if (cell == layer->second.end()) continue;
                    const double v = metricOf(cell->second, which);
                    values[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] = v;
                    if (std::isfinite(v)) {
                        low = std::min(low, v);
                        high = std::max(high, v);
                    }
                }
            }
        }
        heatmap->setValues(values);
        heatmap->setPlaceholder(
            rows.isEmpty() ? tr("No format sweep yet: a sweep measures every format on the same fp32 "
                                "tensors every probes.format_sweep_every steps")
                           : QString());
    }
    for (CategoryHeatmapPlot* heatmap : heatmaps_) {
        // One colour scale for A and B.
        if (which == Metric::Snr) {
            heatmap->setValueStyle(CategoryHeatmapPlot::ValueStyle::Decibels, tr("SNR (dB), higher is better"));
            heatmap->setColourRange(std::isfinite(low) ? std::floor(low) : 0.0,
                                    std::isfinite(high) ? std::ceil(high) : 1.0, false);
        } else {
            heatmap->setValueStyle(CategoryHeatmapPlot::ValueStyle::Percent,
                                   which == Metric::Underflow ? tr("fraction flushed to 0") : tr("fraction saturated"));
            // From 0: a small loss is still light, whatever the largest.
            heatmap->setColourRange(0.0, std::isfinite(high) && high > 0.0 ? high : 1.0, true);
        }
    }
    stepLabel_->setText(shownStep_ >= 0 ? tr("step %1 (%2 of %3)").arg(shownStep_).arg(slider_->value() + 1).arg(a ? a->size() : 0)
                                        : tr("no sweep yet"));
    noteLabel_->setText(tr("Each cell: the layer's fp32 tensor rounded to that format (fp16, bf16 plain "
                           "casts; e4m3, e5m2 per-tensor scaled; MX and NVFP4 block-scaled)."));
}

}  // namespace ampscope::ui
