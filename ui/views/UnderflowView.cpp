#include "views/UnderflowView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "plots/HeatmapPlot.h"
#include "plots/PowerOfTwoText.h"
#include "plots/UnderflowFractionPlot.h"
#include "precision/Fp16Limits.h"
#include "probes/ProbeRecords.h"
#include "views/ChooserRow.h"
#include "run/EventSchema.h"
#include "views/ParsedRecord.h"

namespace ampscope::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kLayersCheckedAtFirst = 6;           // more lines than this are a tangle

QString kindName(std::string_view kind) {
    return QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()));
}

// The weight of a probe step when a kind's steps are thinned: how much fp16 lost there
// (flushed, subnormal, overflowed or non-finite fractions over all layers), so that the
// worst moments stay in view.
double lostToFp16(const std::map<QString, Fp16ClassCounts>& layers) {
    double sum = 0.0;
    for (const auto& [layer, c] : layers)
        sum += c.flushedFraction() + c.subnormalFraction() + c.overflowFraction() +
               c.nonFiniteFraction();
    return sum;
}

}  // namespace

UnderflowView::UnderflowView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("underflow"));

    fractionBox_ = new QComboBox(this);
    fractionBox_->setObjectName(QStringLiteral("underflowFraction"));
    fractionBox_->addItem(tr("flushed to 0"), static_cast<int>(Fraction::Flushed));
    fractionBox_->addItem(tr("subnormal"), static_cast<int>(Fraction::Subnormal));
    fractionBox_->addItem(tr("overflowed to inf"), static_cast<int>(Fraction::Overflow));
    fractionBox_->setToolTip(
        tr("Flushed: non-zero before rounding to fp16, 0 after (|x| \u2264 %1). "
           "Subnormal: rounds to a non-zero value below %2 (fewer bits). "
           "Overflowed: finite before, \u00B1inf after (|x| \u2265 %3).")
            .arg(powerOfTwoText(fp16::kFlushedAtOrBelowLog2),
                 powerOfTwoText(fp16::kSmallestNormalLog2))
            .arg(fp16::kOverflowBound));
    tensorBox_ = new QComboBox(this);
    tensorBox_->setObjectName(QStringLiteral("underflowTensor"));
    tensorBox_->addItem(tr("scaled parameter gradients"), kindName(probe_kind::kParamGradScaled));
    tensorBox_->addItem(tr("activation gradients (emulated fp16)"),
                        kindName(probe_kind::kActivationGrad));
    tensorBox_->addItem(tr("activations, forward (emulated fp16)"),
                        kindName(probe_kind::kActivation));
    noteLabel_ = makeDockNote(this, QStringLiteral("underflowNote"));
    QHBoxLayout* controls = makeChooserRow(
        this, {{tr("Fraction:"), fractionBox_}, {tr("of the:"), tensorBox_}}, noteLabel_);

    heatmap_ = new HeatmapPlot(this);
    heatmap_->setObjectName(QStringLiteral("underflow-map"));
    heatmap_->setMinimumSize(300, 120);
    linePlot_ = new UnderflowFractionPlot(this);
    layerList_ = new QListWidget(this);
    layerList_->setObjectName(QStringLiteral("underflowLayers"));
    layerList_->setToolTip(tr("Layers drawn as lines"));
    layerList_->setMaximumWidth(150);
    connect(layerList_, &QListWidget::itemChanged, this, &UnderflowView::onLayerItemChanged);

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QHBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(linePlot_, 1);
    lowerLayout->addWidget(layerList_);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(heatmap_);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(splitter, 1);

    connect(fractionBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updatingControls_) rebuildRows();
    });
    connect(tensorBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updatingControls_) rebuildRows();
    });
    rebuildRows();
}

void UnderflowView::beginRun(const RunContext& context) {
    probesEvery_ = context.config.probes.every;
    lastStep_ = 0;
    heatmap_->setStepExtent(0);
    emulated_ = false;
    layers_.clear();
    data_.clear();
    layersWithData_.clear();
    rows_.clear();
    rebuildRows();
}

void UnderflowView::takeRecord(const nlohmann::json& record) {
    const std::string type = recordType(record);
    if (type == event_type::kRunInfo) {
        dirty_ |= layers_.takeRunInfo(record);
        if (record.contains("precision") && record["precision"].is_object())
            emulated_ = record["precision"].value("emulated", false);
        return;
    }
    if (type != probe_record_type::kUnderflow) return;
    auto read = parsedRecord("underflow", record, underflowRecordFromJson);
    if (!read) return;
    const UnderflowRecord& parsed = *read;
    if (parsed.multiplier != 1.0) return;  // a "what if" count, not what happened
    const QString kind = QString::fromStdString(parsed.kind);
    const QString layer = QString::fromStdString(parsed.layer);
    KindData& d = data_.try_emplace(kind, kMaxKeptProbeSteps, lostToFp16).first->second;
    const int thinningsBefore = d.thinnings();
    StepCounts* reported = d.entryFor(parsed.step);
    if (!reported) return;  // steps come in order; an older one is a replay
    // The plots' columns index the kept steps: redraw them from what is left.
    if (d.thinnings() != thinningsBefore && kind == tensorKind()) replotNeeded_ = true;
    (*reported)[layer] = parsed.counts;
    layers_.add(layer);
    QStringList& withData = layersWithData_[kind];
    if (!withData.contains(layer)) {
        withData << layer;
        if (kind == tensorKind()) dirty_ = true;
    }
}

void UnderflowView::endOfBatch() {
    heatmap_->setStepExtent(lastStep_);
    if (replotNeeded_) {
        replotNeeded_ = false;
        if (!dirty_) {
            rebuildPlots();
            return;
        }
    }
    if (dirty_) {
        dirty_ = false;
        QStringList wanted;
        for (const QString& name : layers_.names())
            if (layersWithData_[tensorKind()].contains(name)) wanted << name;
        if (wanted != rows_) {
            rebuildRows();
            return;
        }
    }
    appendCompleteSteps();
    updateLogScale();
    updateEmptyTexts();
    heatmap_->refresh();
    linePlot_->endOfBatch();
}

UnderflowView::Fraction UnderflowView::fraction() const {
    return static_cast<Fraction>(fractionBox_->currentData().toInt());
}

void UnderflowView::setFraction(Fraction fraction) {
    fractionBox_->setCurrentIndex(fractionBox_->findData(static_cast<int>(fraction)));
}

QString UnderflowView::tensorKind() const {
    return tensorBox_->currentData().toString();
}

void UnderflowView::setTensorKind(const QString& kind) {
    const int index = tensorBox_->findData(kind);
    if (index >= 0) tensorBox_->setCurrentIndex(index);
}

double UnderflowView::fractionOf(const Fp16ClassCounts& counts, Fraction fraction) {
    switch (fraction) {
        case Fraction::Flushed:
            return counts.flushedFraction();
        case Fraction::Subnormal:
            return counts.subnormalFraction();
        case Fraction::Overflow:
            return counts.overflowFraction();
    }
    return kNaN;
}

QString UnderflowView::fractionName() const {
    return fractionBox_->currentText();
}

const UnderflowView::KindData* UnderflowView::shownData() const {
    auto it = data_.find(tensorKind());
    return it == data_.end() ? nullptr : &it->second;
}

void UnderflowView::rebuildRows() {
    rows_.clear();
    const QStringList withData = layersWithData_[tensorKind()];
    for (const QString& name : layers_.names())
        if (withData.contains(name)) rows_ << name;

    // The map draws row 0 at the bottom: hand it the layers reversed, first layer on top.
    HeatmapLayout layout;
    layout.firstBinY = 0.0;
    layout.valueBins = 0;
    for (auto it = rows_.crbegin(); it != rows_.crend(); ++it) layout.extraRows << *it;
    if (layout.extraRows.isEmpty()) layout.extraRows << QString();
    layout.yLabel = tr("layer");
    layout.colourLabel = tr("fraction");  // the bar is short when there are few layers
    heatmap_->configure(layout);

    // Keep the user's choice of lines across rebuilds; check the first few at first.
    std::map<QString, bool> checked;
    for (int i = 0; i < layerList_->count(); ++i)
        checked[layerList_->item(i)->text()] = layerList_->item(i)->checkState() == Qt::Checked;
    updatingControls_ = true;
    layerList_->clear();
    linePlot_->setLayers(rows_);
    linePlot_->setFractionName(fractionName());
    for (int i = 0; i < rows_.size(); ++i) {
        auto* item = new QListWidgetItem(rows_[i], layerList_);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        const auto known = checked.find(rows_[i]);
        const bool on = known != checked.end() ? known->second : i < kLayersCheckedAtFirst;
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
        linePlot_->setLayerShown(i, on);
    }
    updatingControls_ = false;
    rebuildPlots();
}

void UnderflowView::rebuildPlots() {
    heatmap_->clear();
    linePlot_->clearPoints();
    shownSteps_ = 0;
    lowestPositive_ = 0.0;
    highest_ = 0.0;
    appendCompleteSteps();
    updateLogScale();
    updateEmptyTexts();
    heatmap_->refresh();
    linePlot_->resetView();
}

bool UnderflowView::stepComplete(const KindData& data, std::size_t index) const {
    if (index + 1 < data.size()) return true;  // a later step came: nothing more will
    for (const QString& layer : rows_)
        if (!data.entry(index).count(layer)) return false;
    return true;
}

void UnderflowView::appendCompleteSteps() {
    const KindData* data = shownData();
    if (!data || rows_.isEmpty()) return;
    const Fraction which = fraction();
    const int n = static_cast<int>(rows_.size());
    for (; shownSteps_ < data->size() && stepComplete(*data, shownSteps_); ++shownSteps_) {
        const StepCounts& reported = data->entry(shownSteps_);
        const int64_t step = data->step(shownSteps_);
        std::vector<double> column(static_cast<std::size_t>(n), kNaN);
        for (int r = 0; r < n; ++r) {
            const auto it = reported.find(rows_[r]);
            if (it == reported.end()) continue;
            const double value = fractionOf(it->second, which);
            column[static_cast<std::size_t>(n - 1 - r)] = value;
            if (value > 0.0 && (lowestPositive_ == 0.0 || value < lowestPositive_))
                lowestPositive_ = value;
            highest_ = std::max(highest_, value);
            linePlot_->append(r, static_cast<double>(step),
                              linePlot_->isLogarithmic() && value <= 0.0 ? kNaN : value);
        }
        heatmap_->appendColumn(step, column);
    }
}

void UnderflowView::updateLogScale() {
    const bool wanted = lowestPositive_ > 0.0 && highest_ / lowestPositive_ > 100.0;
    if (wanted == linePlot_->isLogarithmic()) return;
    linePlot_->setLogarithmic(wanted);
    // Zeros become gaps on a log axis (and points again on a linear one): redo the lines
    // from the kept records. Rare: at most once or twice a run.
    linePlot_->clearPoints();
    const KindData* data = shownData();
    if (!data) return;
    const Fraction which = fraction();
    for (std::size_t i = 0; i < shownSteps_; ++i)
        for (int r = 0; r < rows_.size(); ++r) {
            const auto it = data->entry(i).find(rows_[r]);
            if (it == data->entry(i).end()) continue;
            const double value = fractionOf(it->second, which);
            linePlot_->append(r, static_cast<double>(data->step(i)),
                              wanted && value <= 0.0 ? kNaN : value);
        }
}

void UnderflowView::updateEmptyTexts() {
    QString why;
    const QString kind = tensorKind();
    if (probesEvery_ <= 0)
        why = tr("Probes are off in this run (probes.every = 0)");
    else if (rows_.isEmpty() && kind != kindName(probe_kind::kParamGradScaled) && !emulated_ &&
             !data_.empty())
        why =
            tr("No counts for this tensor: they are taken where fp16 is emulated "
               "(mode fp16 or fp16-pure on the CPU)");
    else if (rows_.isEmpty())
        why = tr("No underflow counts yet: the probes run at step 1 and every %1 steps")
                  .arg(probesEvery_);
    heatmap_->setPlaceholder(why);
    linePlot_->setEmptyText(
        shownSteps_ == 0 ? (why.isEmpty() ? tr("Waiting for a probe step…") : why) : QString());
    bool exact = true;
    if (const KindData* data = shownData(); data && !data->empty())
        for (const auto& [layer, counts] : data->back()) exact = exact && counts.exact;
    const QString how = exact ? tr("counted exactly") : tr("estimated from the histograms");
    noteLabel_->setText(tr("Fraction of each layer's elements %1 when rounded to fp16, per probe "
                           "step (%2).")
                            .arg(fractionName(), how));
}

double UnderflowView::cell(const QString& layer, int column) const {
    const int index = rows_.indexOf(layer);
    if (index < 0) return kNaN;
    return heatmap_->value(column, static_cast<int>(rows_.size()) - 1 - index);
}

void UnderflowView::setLayerChecked(const QString& layer, bool checked) {
    const auto items = layerList_->findItems(layer, Qt::MatchExactly);
    if (!items.isEmpty()) items.front()->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

void UnderflowView::onLayerItemChanged() {
    if (updatingControls_) return;
    for (int i = 0; i < layerList_->count(); ++i)
        linePlot_->setLayerShown(i, layerList_->item(i)->checkState() == Qt::Checked);
    linePlot_->resetView();
}

}  // namespace ampscope::ui
