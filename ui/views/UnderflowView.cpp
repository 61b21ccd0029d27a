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
#include <map>

#include "plots/HeatmapPlot.h"
#include "plots/PowerOfTwoText.h"
#include "plots/UnderflowFractionPlot.h"
#include "precision/Fp16Limits.h"
#include "probes/ProbeRecords.h"
#include "runset/RunSet.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kLayersCheckedAtFirst = 6;  // more lines than this are a tangle

QString kindName(std::string_view kind) {
    return QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()));
}

}  // namespace

UnderflowView::UnderflowView(RunSet* set, QWidget* parent) : QWidget(parent), set_(set) {
    setObjectName(QStringLiteral("underflow"));

    fractionBox_ = new QComboBox(this);
    fractionBox_->setObjectName(QStringLiteral("underflowFraction"));
    fractionBox_->addItem(tr("flushed to 0"), static_cast<int>(Fraction::Flushed));
    fractionBox_->addItem(tr("subnormal"), static_cast<int>(Fraction::Subnormal));
    fractionBox_->addItem(tr("overflowed to inf"), static_cast<int>(Fraction::Overflow));
    fractionBox_->setToolTip(tr("Flushed: non-zero before rounding to fp16, 0 after (|x| \u2264 %1). "
                                "Subnormal: rounds to a non-zero value below %2 (fewer bits). "
                                "Overflowed: finite before, \u00B1inf after (|x| \u2265 %3).")
                                 .arg(powerOfTwoText(fp16::kFlushedAtOrBelowLog2),
                                      powerOfTwoText(fp16::kSmallestNormalLog2))
                                 .arg(fp16::kOverflowBound));
    tensorBox_ = new QComboBox(this);
    tensorBox_->setObjectName(QStringLiteral("underflowTensor"));
    tensorBox_->addItem(tr("scaled parameter gradients"), kindName(probe_kind::kParamGradScaled));
    tensorBox_->addItem(tr("activation gradients (emulated fp16)"), kindName(probe_kind::kActivationGrad));
    tensorBox_->addItem(tr("activations, forward (emulated fp16)"), kindName(probe_kind::kActivation));
    noteLabel_ = makeDockNote(this, QStringLiteral("underflowNote"));
    QHBoxLayout* controls =
        makeChooserRow(this, {{tr("Fraction:"), fractionBox_}, {tr("of the:"), tensorBox_}}, noteLabel_);

    auto* panesBox = new QWidget(this);
    panesLayout_ = new QHBoxLayout(panesBox);
    panesLayout_->setContentsMargins(0, 0, 0, 0);
    linePlot_ = new UnderflowFractionPlot(this);
    layerList_ = new QListWidget(this);
    layerList_->setObjectName(QStringLiteral("underflowLayers"));
    layerList_->setToolTip(tr("Layers of the focused run drawn as lines"));
    layerList_->setMaximumWidth(150);
    connect(layerList_, &QListWidget::itemChanged, this, &UnderflowView::onLayerItemChanged);

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QHBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(linePlot_, 1);
    lowerLayout->addWidget(layerList_);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(panesBox);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(splitter, 1);

    connect(fractionBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updatingControls_) showChoice();
    });
    connect(tensorBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updatingControls_) showChoice();
    });
    connect(set_, &RunSet::changed, this, &UnderflowView::onChanged);
    rebuildPanes();
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

QString UnderflowView::fractionName() const {
    return fractionBox_->currentText();
}

HeatmapPlot* UnderflowView::heatmap() const {
    return panes_.front()->heatmap();
}

UnderflowMapPane* UnderflowView::pane(int index) const {
    return index >= 0 && index < paneCount() ? panes_[static_cast<std::size_t>(index)] : nullptr;
}

QStringList UnderflowView::rowLayers() const {
    return panes_.front()->rows();
}

double UnderflowView::cell(const QString& layer, int column) const {
    return panes_.front()->cell(layer, column);
}

void UnderflowView::onChanged(RunId run, RunChanges what) {
    if (what & kShownRunsChange) {
        rebuildPanes();
        return;
    }
    if (!(what & RunChange::Underflow) || !set_->isShown(run)) return;
    for (UnderflowMapPane* pane : panes_)
        if (pane->run() && pane->run()->id() == run) pane->update();
    shareColours();
    appendLines();
    updateEmptyTexts();
}

void UnderflowView::rebuildPanes() {
    std::vector<const RunModel*> shown = set_->shownRuns();
    if (shown.size() > static_cast<std::size_t>(kMaxSideBySide)) shown.resize(kMaxSideBySide);
    const std::size_t wanted = std::max<std::size_t>(1, shown.size());
    while (panes_.size() < wanted) {
        panes_.push_back(new UnderflowMapPane(this));
        panesLayout_->addWidget(panes_.back(), 1);
    }
    while (panes_.size() > wanted) {
        delete panes_.back();
        panes_.pop_back();
    }
    for (std::size_t i = 0; i < panes_.size(); ++i)
        panes_[i]->show(i < shown.size() ? shown[i] : nullptr, tensorKind(), fraction(), shown.size() > 1);
    showChoice();
}

void UnderflowView::showChoice() {
    for (UnderflowMapPane* pane : panes_) pane->show(pane->run(), tensorKind(), fraction(), panes_.size() > 1);
    shareColours();
    rebuildLines();
    updateEmptyTexts();
}

void UnderflowView::shareColours() {
    double low = 0.0, high = 0.0;
    for (const UnderflowMapPane* pane : panes_) {
        const HeatmapPlot* map = pane->heatmap();
        if (map->smallestPositive() > 0.0 && (low == 0.0 || map->smallestPositive() < low))
            low = map->smallestPositive();
        high = std::max(high, map->largest());
    }
    for (UnderflowMapPane* pane : panes_) {
        pane->heatmap()->setColourRange(low, high);
        pane->heatmap()->refresh();
    }
}

void UnderflowView::rebuildLines() {
    lineRows_ = panes_.front()->rows();
    // Keep the user's choice of lines across rebuilds; check the first few at first.
    std::map<QString, bool> checked;
    for (int i = 0; i < layerList_->count(); ++i)
        checked[layerList_->item(i)->text()] = layerList_->item(i)->checkState() == Qt::Checked;
    updatingControls_ = true;
    layerList_->clear();
    std::size_t runsWithLines = 0;
    for (const UnderflowMapPane* pane : panes_) runsWithLines += pane->run() != nullptr;
    if (runsWithLines > 1) {
        QStringList names;
        std::vector<QColor> colours;
        for (const UnderflowMapPane* pane : panes_) {
            if (!pane->run()) continue;
            names << pane->run()->name();
            colours.push_back(pane->run()->colour());
        }
        linePlot_->setRunLines(names, colours, lineRows_);
    } else {
        linePlot_->setLayers(lineRows_);
    }
    linePlot_->setFractionName(fractionName());
    for (int i = 0; i < lineRows_.size(); ++i) {
        auto* item = new QListWidgetItem(lineRows_[i], layerList_);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        const auto known = checked.find(lineRows_[i]);
        const bool on = known != checked.end() ? known->second : i < kLayersCheckedAtFirst;
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
        linePlot_->setLayerShown(i, on);
    }
    updatingControls_ = false;
    linePlot_->clearPoints();
    lineProgress_.assign(runsWithLines > 1 ? runsWithLines : 1, LineProgress{});
    for (std::size_t p = 0; p < lineProgress_.size(); ++p) {
        const UnderflowSeries::KindData* data = panes_[p]->data();
        lineProgress_[p].thinnings = data ? data->thinnings() : 0;
        lineProgress_[p].rows = panes_[p]->rows();
    }
    lowestPositive_ = 0.0;
    highest_ = 0.0;
    appendLines();
    linePlot_->resetView();
}

void UnderflowView::appendLines() {
    for (std::size_t p = 0; p < lineProgress_.size(); ++p) {
        const UnderflowSeries::KindData* data = panes_[p]->data();
        if (panes_[p]->rows() != lineProgress_[p].rows || (data && data->thinnings() != lineProgress_[p].thinnings)) {
            rebuildLines();
            return;
        }
    }
    for (std::size_t p = 0; p < lineProgress_.size(); ++p) appendLinePoints(p, linePlot_->isLogarithmic());
    updateLogScale();
    linePlot_->redraw();
}

// The complete steps of pane p's run not yet drawn as lines; false when it has none.
bool UnderflowView::appendLinePoints(std::size_t p, bool logarithmic) {
    const UnderflowMapPane* pane = panes_[p];
    const UnderflowSeries::KindData* data = pane->data();
    if (!data) return false;
    const Fraction which = fraction();
    const int firstLine = static_cast<int>(p) * static_cast<int>(lineRows_.size());
    LineProgress& progress = lineProgress_[p];
    const bool any = progress.steps < pane->shownSteps();
    for (; progress.steps < pane->shownSteps(); ++progress.steps) {
        const auto& reported = data->entry(progress.steps);
        for (int r = 0; r < lineRows_.size(); ++r) {
            const auto it = reported.find(lineRows_[r]);
            if (it == reported.end()) continue;
            const double value = fractionOf(it->second, which);
            if (value > 0.0 && (lowestPositive_ == 0.0 || value < lowestPositive_)) lowestPositive_ = value;
            highest_ = std::max(highest_, value);
            linePlot_->append(firstLine + r, static_cast<double>(data->step(progress.steps)),
                              logarithmic && value <= 0.0 ? kNaN : value);
        }
    }
    return any;
}

void UnderflowView::updateLogScale() {
    const bool wanted = lowestPositive_ > 0.0 && highest_ / lowestPositive_ > 100.0;
    if (wanted == linePlot_->isLogarithmic()) return;
    linePlot_->setLogarithmic(wanted);
    // Zeros become gaps on a log axis (and points again on a linear one): redo the lines
    // from the kept counts. Rare: at most once or twice a run.
    linePlot_->clearPoints();
    for (std::size_t p = 0; p < lineProgress_.size(); ++p) {
        lineProgress_[p].steps = 0;
        appendLinePoints(p, wanted);
    }
}

void UnderflowView::updateEmptyTexts() {
    const QString kind = tensorKind();
    QString focusedWhy;
    bool exact = true;
    for (UnderflowMapPane* pane : panes_) {
        QString why;
        const RunModel* run = pane->run();
        if (!run)
            why = tr("No run yet");
        else if (run->underflow().probesEvery() <= 0)
            why = tr("Probes are off in this run (probes.every = 0)");
        else if (pane->rows().isEmpty() && kind != kindName(probe_kind::kParamGradScaled) &&
                 !run->underflow().emulated() && !run->underflow().empty())
            why = tr("No counts for this tensor: they are taken where fp16 is emulated "
                     "(mode fp16 or fp16-pure on the CPU)");
        else if (pane->rows().isEmpty())
            why = tr("No underflow counts yet: the probes run at step 1 and every %1 steps")
                      .arg(run->underflow().probesEvery());
        pane->setPlaceholder(why);
        if (pane == panes_.front()) focusedWhy = why;
        if (const auto* data = pane->data(); data && !data->empty())
            for (const auto& [layer, counts] : data->back()) exact = exact && counts.exact;
    }
    linePlot_->setEmptyText(
        lineProgress_.empty() || lineProgress_.front().steps == 0 ? (focusedWhy.isEmpty() ? tr("Waiting for a probe step\u2026") : focusedWhy) : QString());
    const QString how = exact ? tr("counted exactly") : tr("estimated from the histograms");
    noteLabel_->setText(
        tr("Fraction of each layer's elements %1 when rounded to fp16, per probe step (%2).").arg(fractionName(), how));
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
