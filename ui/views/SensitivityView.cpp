#include "views/SensitivityView.h"

#include <QComboBox>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "plots/CategoryHeatmapPlot.h"
#include "runset/RunModel.h"
#include "runset/RunSet.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A score as the heatmap draws it: NaN (values not finite) is the worst there is, +Inf;
// NaN in the heatmap means "no such cell".
double shownScore(double score) {
    return std::isnan(score) ? kInf : score;
}

}  // namespace

SensitivityView::SensitivityView(RunSet* set, QWidget* parent) : QWidget(parent), set_(set) {
    setObjectName(QStringLiteral("sensitivity"));
    passesBox_ = new QComboBox(this);
    passesBox_->setObjectName(QStringLiteral("sensitivityPasses"));
    passesBox_->addItem(tr("mean over the passes"), static_cast<int>(Passes::Mean));
    passesBox_->addItem(tr("latest pass"), static_cast<int>(Passes::Latest));
    passesBox_->setToolTip(tr("A pass measures one batch: its scores are noisy, their mean over "
                              "the run's passes less so"));
    note_ = makeDockNote(this, QStringLiteral("sensitivityNote"));
    QHBoxLayout* controls = makeChooserRow(this, {{tr("Show:"), passesBox_}}, note_);

    heatmap_ = new CategoryHeatmapPlot(this);
    heatmap_->setObjectName(QStringLiteral("sensitivity-map"));
    heatmap_->setAxisLabels(tr("layer (largest score on top)"), tr("number format"));
    heatmap_->setValueStyle(CategoryHeatmapPlot::ValueStyle::Score, tr("score (loss\u00B2, log scale)"));
    heatmap_->setToolTip(
        tr("Score: the square of the first-order change of the batch's loss when only this layer's "
           "matmul/conv operands are quantized in the format (from an fp32 twin of the run). "
           "Hatched: 0, the format rounds nothing there. Click a cell to see the layer's gradient "
           "histograms and map."));

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(heatmap_, 1);

    connect(passesBox_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(heatmap_, &CategoryHeatmapPlot::cellClicked, this, [this](int row, int) {
        const QStringList& rows = heatmap_->rows();
        if (row >= 0 && row < rows.size()) Q_EMIT layerChosen(rows[row]);
    });
    connect(set_, &RunSet::changed, this, &SensitivityView::onChanged);
    redraw();
}

void SensitivityView::setPasses(Passes passes) {
    passesBox_->setCurrentIndex(passesBox_->findData(static_cast<int>(passes)));
}

SensitivityView::Passes SensitivityView::passes() const {
    return static_cast<Passes>(passesBox_->currentData().toInt());
}

const SensitivityRecord* SensitivityView::shownRecord() const {
    const RunModel* run = set_->focused();
    if (!run) return nullptr;
    const SensitivityHistory& history = run->sensitivity();
    return passes() == Passes::Mean ? history.mean() : history.latest();
}

double SensitivityView::largestScore(const LayerSensitivity& layer) {
    double largest = -kInf;
    for (const auto& f : layer.formats) largest = std::max(largest, shownScore(f.score));
    return largest;
}

std::vector<const LayerSensitivity*> SensitivityView::sortedLayers(const SensitivityRecord& record) {
    std::vector<const LayerSensitivity*> layers;
    for (const auto& layer : record.layers) layers.push_back(&layer);
    std::stable_sort(layers.begin(), layers.end(), [](const LayerSensitivity* a, const LayerSensitivity* b) {
        return largestScore(*a) > largestScore(*b);
    });
    return layers;
}

void SensitivityView::onChanged(RunId run, RunChanges what) {
    const RunModel* focused = set_->focused();
    const bool focusedRun = focused && focused->id() == run;
    if (what & (RunChange::Focus | RunChange::Removed) || (focusedRun && what & RunChange::Sensitivity)) redraw();
}

void SensitivityView::redraw() {
    const SensitivityRecord* record = shownRecord();
    if (!record || record->layers.empty()) {
        heatmap_->setCategories({}, {});
        heatmap_->setPlaceholder(set_->focused()
                                     ? tr("No sensitivity pass in this run: set probes.sensitivity_every (steps) "
                                          "in the config, or run ampscope-cli sensitivity")
                                     : tr("No run"));
        note_->setText({});
        return;
    }
    const auto layers = sortedLayers(*record);
    QStringList rows, columns;
    for (const auto* layer : layers) rows << QString::fromStdString(layer->layer);
    for (const auto& format : record->formats) columns << QString::fromStdString(format);
    std::vector<std::vector<double>> values(layers.size(), std::vector<double>(record->formats.size(), kNaN));
    double low = kInf, high = 0.0;
    for (std::size_t r = 0; r < layers.size(); ++r)
        for (std::size_t c = 0; c < record->formats.size(); ++c) {
            const LayerFormatSensitivity* cell = layers[r]->in(record->formats[c]);
            if (!cell) continue;
            const double v = shownScore(cell->score);
            values[r][c] = v;
            if (v > 0.0 && std::isfinite(v)) {
                low = std::min(low, v);
                high = std::max(high, v);
            }
        }
    if (!(high > 0.0)) low = 1e-12, high = 1e-11;      // every score 0 or non-finite
    if (!(high > low)) low = high / 10.0;                 // one value: a decade below it
    // The colour bar's ticks are powers of ten: its ends on whole decades, so a tick
    // labels each end and every score lies between two labelled ticks.
    low = std::pow(10.0, std::floor(std::log10(low)));
    high = std::pow(10.0, std::ceil(std::log10(high)));
    if (columns != heatmap_->columns() || rows != heatmap_->rows()) heatmap_->setCategories(rows, columns);
    heatmap_->setColourRange(low, high, true);
    heatmap_->setValues(values);
    heatmap_->setPlaceholder({});
    const RunModel* run = set_->focused();
    const std::size_t passCount = run ? run->sensitivity().passes().size() : 0;
    note_->setText(passes() == Passes::Mean
                       ? tr("Mean of %1, the last at step %2; the batches' mean loss %3")
                             .arg(passCount == 1 ? tr("one pass") : tr("%1 passes").arg(passCount))
                             .arg(record->step)
                             .arg(record->loss, 0, 'g', 4)
                       : tr("Pass at step %1 (of %2 kept); loss of the batch %3")
                             .arg(record->step)
                             .arg(passCount)
                             .arg(record->loss, 0, 'g', 4));
}

}  // namespace ampscope::ui
