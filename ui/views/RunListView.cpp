#include "views/RunListView.h"

#include <QHBoxLayout>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "runset/RunSet.h"
#include "views/SeedBandLabels.h"

namespace ampscope::ui {

namespace {

constexpr int kIdRole = Qt::UserRole;

QIcon swatch(const QColor& colour) {
    QPixmap pixmap(14, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.fillRect(QRect(1, 1, 12, 12), colour);
    painter.setPen(colour.darker(150));
    painter.drawRect(QRect(1, 1, 11, 11));
    return QIcon(pixmap);
}

}  // namespace

RunListView::RunListView(RunSet* set, QWidget* parent) : QWidget(parent), set_(set) {
    setObjectName(QStringLiteral("runList"));
    list_ = new QListWidget(this);
    list_->setObjectName(QStringLiteral("runListRows"));
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    // Two runs' rows at least; the window's left column holds the scenario list above.
    list_->setMinimumHeight(4 * list_->fontMetrics().height() + 8);
    list_->setToolTip(tr("Click a run to focus it in every view; check it to compare it with the focused one"));
    addButton_ = new QPushButton(tr("Add run\u2026"), this);
    addButton_->setToolTip(tr("Open a run directory, a recorded job's folder of ranks or a scenario's "
                              "output folder into the list"));
    removeButton_ = new QPushButton(tr("Remove"), this);
    removeButton_->setToolTip(tr("Take the selected run out of the list (its directory stays)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(addButton_);
    buttons->addWidget(removeButton_);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(list_, 1);
    layout->addLayout(buttons);

    connect(addButton_, &QPushButton::clicked, this, &RunListView::addRunRequested);
    connect(removeButton_, &QPushButton::clicked, this, [this] {
        if (const QListWidgetItem* item = list_->currentItem()) set_->removeRun(item->data(kIdRole).toInt());
    });
    connect(list_, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { set_->focus(item->data(kIdRole).toInt()); });
    connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        set_->setCompared(item->data(kIdRole).toInt(), item->checkState() == Qt::Checked);
    });
    connect(list_, &QListWidget::currentRowChanged, this, &RunListView::updateRemoveButton);
    connect(set_, &RunSet::changed, this, &RunListView::onChanged);
    rebuild();
}

int RunListView::rowOf(RunId id) const {
    for (int row = 0; row < list_->count(); ++row)
        if (list_->item(row)->data(kIdRole).toInt() == id) return row;
    return -1;
}

QString RunListView::rowText(const RunModel& run) {
    QStringList facts{run.badgeText()};
    if (!run.status().isEmpty()) facts << run.status();
    const int64_t nonFinite = run.firstNonFiniteStep();
    if (nonFinite >= 0 && run.nonFinite().receivedThroughAllReduce())
        facts << tr("non-finite via all-reduce, step %1").arg(nonFinite);
    else if (nonFinite >= 0)
        facts << tr("non-finite at step %1").arg(nonFinite);
    return run.name() + QLatin1Char('\n') + facts.join(QStringLiteral(" \u00B7 "));
}

QString RunListView::rowText(const RunModel& run, const QString& bandLabel) {
    return bandLabel.isEmpty() ? rowText(run) : rowText(run) + QLatin1Char('\n') + bandLabel;
}

bool RunListView::relabel() {
    epochsLabelled_.clear();
    for (const RunModel* run : set_->runs()) epochsLabelled_[run->id()] = run->steps().epochs().size();
    std::map<RunId, SeedBandLabel> labels = seedBandLabels(*set_);
    if (labels == bandLabels_) return false;
    bandLabels_ = std::move(labels);
    return true;
}

void RunListView::updateRow(QListWidgetItem* item, const RunModel& run) {
    const QSignalBlocker quiet(list_);  // the check state set here is not the user's
    const auto label = bandLabels_.find(run.id());
    const bool labelled = label != bandLabels_.end();
    item->setText(rowText(run, labelled ? label->second.text : QString()));
    item->setIcon(swatch(run.colour()));
    item->setCheckState(run.isCompared() || run.id() == set_->focusedId() ? Qt::Checked : Qt::Unchecked);
    QFont font = item->font();
    font.setBold(run.id() == set_->focusedId());
    item->setFont(font);
    QString tip = run.directory().isEmpty() ? run.name() : run.directory();
    if (!run.errorMessage().isEmpty()) tip += QLatin1Char('\n') + run.errorMessage();
    if (labelled) tip += QLatin1Char('\n') + label->second.toolTip;
    item->setToolTip(tip);
    if (run.firstNonFiniteStep() >= 0) item->setForeground(QColor(183, 28, 28));
    else item->setData(Qt::ForegroundRole, QVariant());
}

void RunListView::scheduleRelabel() {
    if (relabelPending_) return;
    relabelPending_ = true;
    QTimer::singleShot(0, this, [this] {
        relabelPending_ = false;
        if (!relabel()) return;
        for (int row = 0; row < list_->count(); ++row)
            if (const RunModel* model = set_->run(list_->item(row)->data(kIdRole).toInt()))
                updateRow(list_->item(row), *model);
        announceFocusedLabel();
    });
}

void RunListView::appendRow(const RunModel& run) {
    const QSignalBlocker quiet(list_);
    auto* item = new QListWidgetItem(list_);
    item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setData(kIdRole, run.id());
    updateRow(item, run);
}

void RunListView::onChanged(RunId run, RunChanges what) {
    const RunModel* added = (what & RunChange::Added) ? set_->run(run) : nullptr;
    if (added && list_->count() + 1 == set_->size() && set_->runs().back() == added) {
        appendRow(*added);
        if (set_->focusedId() == run) {
            const QSignalBlocker quiet(list_);
            list_->setCurrentRow(list_->count() - 1);
        }
        scheduleRelabel();
        updateRemoveButton();
        return;
    }
    if (what & (RunChange::Added | RunChange::Removed)) {
        rebuild();
        return;
    }
    // A final validation loss arrives with an epoch; a new grouping with the shown runs.
    const RunModel* changed = set_->run(run);
    const bool newEpoch = (what & RunChange::Steps) && changed &&
                          epochsLabelled_[run] != changed->steps().epochs().size();
    if (newEpoch || (what & (kShownRunsChange | RunChange::Identity))) scheduleRelabel();
    if (what & RunChange::Focus) {
        announceFocusedLabel();
        for (int row = 0; row < list_->count(); ++row)
            if (const RunModel* model = set_->run(list_->item(row)->data(kIdRole).toInt()))
                updateRow(list_->item(row), *model);
        const QSignalBlocker quiet(list_);
        list_->setCurrentRow(rowOf(set_->focusedId()));
        updateRemoveButton();
        return;
    }
    if (what & (RunChange::Compared | RunChange::Identity))
        if (const int row = rowOf(run); row >= 0) updateRow(list_->item(row), *set_->run(run));
    updateRemoveButton();
}

void RunListView::rebuild() {
    const QSignalBlocker quiet(list_);
    relabel();
    list_->clear();
    for (const RunModel* run : set_->runs()) appendRow(*run);
    list_->setCurrentRow(rowOf(set_->focusedId()));
    updateRemoveButton();
    announceFocusedLabel();
}

void RunListView::announceFocusedLabel() {
    const auto label = bandLabels_.find(set_->focusedId());
    if (label == bandLabels_.end())
        Q_EMIT focusedBandLabelChanged(QString(), QString());
    else
        Q_EMIT focusedBandLabelChanged(label->second.statusText, label->second.toolTip);
}

void RunListView::updateRemoveButton() {
    const QListWidgetItem* item = list_->currentItem();
    const RunModel* run = item ? set_->run(item->data(kIdRole).toInt()) : nullptr;
    removeButton_->setEnabled(run && run->status() != QStringLiteral("training"));
}

}  // namespace ampscope::ui
