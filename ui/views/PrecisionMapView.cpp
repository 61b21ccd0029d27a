#include "views/PrecisionMapView.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>
#include <cmath>

#include "plots/ExponentOverlayPlot.h"
#include "plots/PrecisionMapPlot.h"
#include "probes/PrecisionMapText.h"
#include "runset/RunModel.h"
#include "runset/RunSet.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

namespace {

const QColor kRunColor(31, 119, 180);
const QColor kReferenceColor(120, 120, 120);
constexpr int kModuleRole = Qt::UserRole;

QString qs(const std::string& text) { return QString::fromStdString(text); }

QString errorText(double value) {
    if (std::isnan(value)) return QStringLiteral("—");
    if (std::isinf(value)) return QStringLiteral("inf");
    return value == 0.0 ? QStringLiteral("0") : QString::number(value, 'e', 2);
}

// Module entries of a map, for one module and phase: "entering → leaving".
QString flowText(const PrecisionMapRecord& map, const std::string& module, const std::string& phase) {
    for (const auto& m : map.modules)
        if (m.module == module && m.phase == phase)
            return errorText(m.inputError) + QStringLiteral(" → ") + errorText(m.outputError);
    return {};
}

// Consecutive ops of one module: the plot's bands.
std::vector<PrecisionMapPlot::Band> bandsOf(const PrecisionMapRecord& map) {
    std::vector<PrecisionMapPlot::Band> bands;
    for (size_t k = 0; k < map.ops.size(); ++k) {
        const QString module = qs(map.ops[k].module);
        const bool sameAsLast = !bands.empty() && bands.back().label == module &&
                                map.ops[k - 1].phase == map.ops[k].phase;
        if (sameAsLast)
            ++bands.back().ops;
        else
            bands.push_back({module, static_cast<int>(k), 1});
    }
    return bands;
}

PrecisionMapPlot::Series seriesOf(const QString& name, const QColor& color, const PrecisionMapRecord& map) {
    PrecisionMapPlot::Series series{name, color, {}, {}};
    for (const auto& op : map.ops) {
        series.relError.push_back(op.relError);
        series.addedError.push_back(op.addedError);
    }
    return series;
}

}  // namespace

PrecisionMapView::PrecisionMapView(RunSet* set, QWidget* parent) : QWidget(parent), set_(set) {
    setObjectName(QStringLiteral("precisionMap"));
    stepBox_ = new QComboBox(this);
    stepBox_->setObjectName(QStringLiteral("precisionMapStep"));
    stepBox_->setToolTip(tr("The mapped step shown"));
    summary_ = makeDockNote(this, QStringLiteral("precisionMapSummary"));
    QHBoxLayout* controls = makeChooserRow(this, {{tr("Step:"), stepBox_}}, summary_);

    plot_ = new PrecisionMapPlot(this);
    histograms_ = new ExponentOverlayPlot(this);
    tree_ = new QTreeWidget(this);
    tree_->setObjectName(QStringLiteral("precisionMapModules"));
    tree_->setHeaderLabels({tr("Module"), tr("forward: in → out"), tr("backward: in → out")});
    tree_->setToolTip(tr("Each module's relative error entering (its first op's inputs) and leaving "
                         "(its last op's output), forward and backward"));
    tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);

    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->addWidget(tree_);
    lower->addWidget(histograms_);
    // The tree's columns ask for all their text: without a floor the histograms get a sliver.
    histograms_->setMinimumWidth(320);
    lower->setStretchFactor(0, 1);
    lower->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(plot_);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(split, 1);

    connect(stepBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (updatingChooser_ || index < 0) return;
        followLatest_ = index == stepBox_->count() - 1;
        showStep(stepBox_->itemData(index).toLongLong());
    });
    connect(plot_, &PrecisionMapPlot::opClicked, this, [this](int index) { setSelectedOp(index); });
    connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        const auto* map = shownMap();
        if (!map) return;
        const std::string module = item->data(0, kModuleRole).toString().toStdString();
        for (size_t k = 0; k < map->ops.size(); ++k)
            if (map->ops[k].module == module) return setSelectedOp(static_cast<int>(k));
    });
    connect(set_, &RunSet::changed, this, &PrecisionMapView::onChanged);
    redraw();
}

const RunModel* PrecisionMapView::focusedRun() const {
    return set_->focused();
}

int64_t PrecisionMapView::malformedRecords() const {
    const RunModel* run = focusedRun();
    return run ? run->precisionMap().malformedRecords() : 0;
}

void PrecisionMapView::onChanged(RunId run, RunChanges what) {
    const RunModel* focused = focusedRun();
    const RunId focusedId = focused ? focused->id() : kNoRun;
    if (focusedId != shownRun_) {
        // Another run in front: its newest map.
        shownRun_ = focusedId;
        shownStep_ = -1;
        followLatest_ = true;
    } else if (!(what & (RunChange::PrecisionMap | kShownRunsChange | RunChange::Identity))) {
        return;
    } else if (run != focusedId && !set_->isShown(run) && !(what & kShownRunsChange)) {
        return;
    }
    const int64_t latest = focused ? focused->precisionMap().latestStep() : -1;
    if (!focused || !focused->precisionMap().map(shownStep_) || followLatest_) shownStep_ = latest;
    updateChooser();
    redraw();
}

void PrecisionMapView::updateChooser() {
    updatingChooser_ = true;
    stepBox_->clear();
    const RunModel* run = focusedRun();
    if (run)
        for (const auto& [step, map] : run->precisionMap().maps())
            stepBox_->addItem(tr("%1 (%2 vs %3)").arg(step).arg(qs(map.mode), qs(map.reference)),
                              QVariant::fromValue<qlonglong>(step));
    const int index = stepBox_->findData(QVariant::fromValue<qlonglong>(shownStep_));
    stepBox_->setCurrentIndex(index);
    updatingChooser_ = false;
}

const PrecisionMapRecord* PrecisionMapView::shownMap() const {
    const RunModel* run = focusedRun();
    return run ? run->precisionMap().map(shownStep_) : nullptr;
}

void PrecisionMapView::showStep(int64_t step) {
    const RunModel* run = focusedRun();
    if (!run || !run->precisionMap().map(step)) return;
    shownStep_ = step;
    updateChooser();
    redraw();
}

void PrecisionMapView::redraw() {
    const PrecisionMapRecord* map = shownMap();
    overlayCount_ = 0;
    if (!map) {
        plot_->clearMap(tr("No precision map yet: list steps in probes.precision_map_steps, or pause a run "
                           "and use Run > Map this step against fp32."));
        histograms_->clear(tr("Click an op in the map to compare its values with the reference's."));
        tree_->clear();
        summary_->setText(tr("One training step run twice from the same state, in the run's mode and in "
                             "fp32: where the error enters, op by op."));
        return;
    }
    PrecisionMapPlot::Map drawn;
    const QString runTitle = focusedRun()->name();
    drawn.series.push_back(seriesOf(runTitle.isEmpty() ? qs(map->mode) : runTitle + " (" + qs(map->mode) + ")",
                                    kRunColor, *map));
    // The other compared runs' maps of this step (another mode's run of the config).
    for (const RunModel* other : set_->shownRuns()) {
        if (other == focusedRun()) continue;
        if (const PrecisionMapRecord* theirs = other->precisionMap().map(shownStep_)) {
            drawn.series.push_back(seriesOf(other->name() + " (" + qs(theirs->mode) + ")", other->colour(), *theirs));
            ++overlayCount_;
        }
    }
    drawn.bands = bandsOf(*map);
    for (size_t k = 0; k < map->ops.size(); ++k)
        if (map->ops[k].phase == "backward") {
            drawn.firstBackward = static_cast<int>(k);
            break;
        }
    drawn.unitRoundoffForward = map->unitRoundoff("forward");
    drawn.unitRoundoffBackward = map->unitRoundoff("backward");
    drawn.formatForward = qs(map->formatForward);
    drawn.formatBackward = qs(map->formatBackward);
    if (const auto first = map->firstPastTolerance()) drawn.firstPastTolerance = static_cast<int>(*first);
    drawn.tolerance = map->tolerance("forward");
    for (size_t k = 0; k < map->ops.size(); ++k)
        drawn.tooltips << qs(precisionMapOpName(*map, k)) + "\n" + qs(precisionMapOpErrors(*map, k));
    plot_->setMap(drawn);
    fillTree(*map);
    QString text = qs(precisionMapHeadline(*map));
    if (const auto first = map->firstPastTolerance())
        text += tr(". First past %1 u: %2").arg(kPrecisionMapToleranceUnits).arg(qs(precisionMapOpName(*map, *first)));
    summary_->setText(text + ". Dots: relative error; diamonds: the error the op adds itself.");
    showHistograms(plot_->selectedOp());
}

void PrecisionMapView::fillTree(const PrecisionMapRecord& map) {
    tree_->clear();
    std::map<QString, QTreeWidgetItem*> items;
    // Qualified names nest ("blocks.0.fc1" under "blocks.0" under "blocks"); the zoo's
    // layers and "loss" stay at the top.
    const auto itemFor = [&](const QString& module, const auto& self) -> QTreeWidgetItem* {
        if (auto it = items.find(module); it != items.end()) return it->second;
        const int dot = module.lastIndexOf('.');
        QTreeWidgetItem* parent = dot > 0 ? self(module.left(dot), self) : nullptr;
        auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(tree_);
        item->setText(0, dot > 0 ? module.mid(dot + 1) : module);
        item->setData(0, kModuleRole, module);
        item->setExpanded(true);
        return items[module] = item;
    };
    for (const auto& m : map.modules) {
        QTreeWidgetItem* item = itemFor(qs(m.module), itemFor);
        item->setText(1, flowText(map, m.module, "forward"));
        item->setText(2, flowText(map, m.module, "backward"));
    }
}

void PrecisionMapView::selectModuleInTree(const QString& module) {
    for (QTreeWidgetItemIterator it(tree_); *it; ++it)
        if ((*it)->data(0, kModuleRole).toString() == module) {
            tree_->setCurrentItem(*it);
            tree_->scrollToItem(*it);
            return;
        }
}

int PrecisionMapView::selectedOp() const { return plot_->selectedOp(); }

void PrecisionMapView::setSelectedOp(int index) {
    const PrecisionMapRecord* map = shownMap();
    if (!map || index < 0 || index >= static_cast<int>(map->ops.size())) return;
    plot_->setSelectedOp(index);
    const QString module = qs(map->ops[static_cast<size_t>(index)].module);
    selectModuleInTree(module);
    showHistograms(index);
    Q_EMIT moduleSelected(module);
}

void PrecisionMapView::showHistograms(int index) {
    const PrecisionMapRecord* map = shownMap();
    if (!map || index < 0 || index >= static_cast<int>(map->ops.size())) {
        histograms_->clear(tr("Click an op in the map to compare its values with the reference's."));
        return;
    }
    const auto& op = map->ops[static_cast<size_t>(index)];
    histograms_->setHistograms(qs(precisionMapOpName(*map, static_cast<size_t>(index))),
                               {{tr("%1").arg(qs(map->mode)), kRunColor, op.run},
                                {tr("%1 (reference)").arg(qs(map->reference)), kReferenceColor, op.reference}});
}

}  // namespace ampscope::ui
