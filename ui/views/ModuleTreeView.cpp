#include "views/ModuleTreeView.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QScrollBar>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "probes/NonFiniteEvent.h"
#include "probes/ProbeRecords.h"
#include "run/ModelModulesRecord.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

namespace {

constexpr int kLayerRole = Qt::UserRole;  // the layer name an item stands for

QString layerNameOf(const ScriptModuleInfo& module) {
    return module.name.empty() ? ModuleTreeView::modelItselfName()
                               : QString::fromStdString(module.name);
}

// A red disc with a white "!": the marker stays visible when the row is selected, where
// a background tint would be painted over by the selection.
QIcon culpritMarker(int size) {
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(ModuleTreeView::culpritColor());
    painter.drawEllipse(QRectF(0.5, 0.5, size - 1.0, size - 1.0));
    QFont font = painter.font();
    font.setBold(true);
    font.setPixelSize(size * 3 / 4);
    painter.setFont(font);
    painter.setPen(Qt::white);
    painter.drawText(QRect(0, 0, size, size), Qt::AlignCenter, QStringLiteral("!"));
    return QIcon(pixmap);
}

}  // namespace

QColor ModuleTreeView::culpritColor() {
    return QColor(198, 40, 40);
}

ModuleTreeView::ModuleTreeView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("moduleTree"));
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("moduleTreeCaption"));
    caption_->setWordWrap(true);
    caption_->setStyleSheet(QStringLiteral("color: #555555;"));
    caption_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    tree_ = new QTreeWidget(this);
    tree_->setObjectName(QStringLiteral("moduleTreeWidget"));
    tree_->setColumnCount(4);
    tree_->setHeaderLabels({tr("Module"), tr("Type"), tr("Parameters"), tr("Probed")});
    tree_->headerItem()->setToolTip(kModuleColumn, tr("Qualified name, as named_modules() gives it"));
    tree_->headerItem()->setToolTip(kTypeColumn, tr("The module's Python class"));
    tree_->headerItem()->setToolTip(kParametersColumn,
                                    tr("Elements of the parameters the module holds itself "
                                       "(its submodules' are on their own rows)"));
    tree_->headerItem()->setToolTip(kProbedColumn,
                                    tr("✓: a layer of the run: probed, and named in "
                                       "precision.keep_fp32, faults and the NaN inspector"));
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->setIndentation(10);
    // The model itself is the one root and stays open: no expander for it, one
    // indentation less for every name.
    tree_->setRootIsDecorated(false);
    tree_->setItemsExpandable(true);
    QHeaderView* header = tree_->header();
    header->setStretchLastSection(false);
    // Every column as wide as what it holds, so no name is elided ("blocks.1.f..." could
    // be any of several); the Module column takes the room left (fitColumns), and a
    // narrow dock scrolls sideways instead.
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setMinimumSectionSize(24);
    tree_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    tree_->setTextElideMode(Qt::ElideNone);
    connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        if (item) Q_EMIT moduleActivated(item->data(kModuleColumn, kLayerRole).toString());
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(caption_);
    layout->addWidget(tree_, 1);
    clear();
}

void ModuleTreeView::clear(const QString& caption) {
    modules_.clear();
    highlighted_.clear();
    tree_->clear();
    caption_->setText(caption);
    caption_->setVisible(!caption.isEmpty());
    Q_EMIT modulesChanged();
}

void ModuleTreeView::setModules(const std::vector<ScriptModuleInfo>& modules,
                                const QString& caption) {
    modules_ = modules;
    highlighted_.clear();
    fill();
    caption_->setText(caption);
    caption_->setVisible(!caption.isEmpty());
    Q_EMIT modulesChanged();
}

QString ModuleTreeView::caption() const {
    return caption_->text();
}

void ModuleTreeView::fill() {
    tree_->clear();
    const QLocale numbers(QLocale::English);
    // Pre-order with depths: the open parents form a stack, one per depth.
    std::vector<QTreeWidgetItem*> open;
    for (const ScriptModuleInfo& module : modules_) {
        const std::size_t depth =
            std::min<std::size_t>(static_cast<std::size_t>(std::max(0, module.depth)), open.size());
        open.resize(depth);
        QTreeWidgetItem* item = open.empty() ? new QTreeWidgetItem(tree_)
                                             : new QTreeWidgetItem(open.back());
        const QString layer = layerNameOf(module);
        item->setText(kModuleColumn, layer);
        item->setData(kModuleColumn, kLayerRole, layer);
        item->setText(kTypeColumn, QString::fromStdString(module.type));
        item->setText(kParametersColumn, numbers.toString(static_cast<qlonglong>(module.parameters)));
        item->setTextAlignment(kParametersColumn, Qt::AlignRight | Qt::AlignVCenter);
        if (module.parameters == 0) item->setForeground(kParametersColumn, QColor(150, 150, 150));
        item->setText(kProbedColumn, module.probed ? QStringLiteral("✓") : QString());
        item->setTextAlignment(kProbedColumn, Qt::AlignCenter);
        item->setToolTip(kModuleColumn,
                         module.probed ? tr("%1 (%2): a probed layer").arg(layer, item->text(kTypeColumn))
                                       : tr("%1 (%2)").arg(layer, item->text(kTypeColumn)));
        open.push_back(item);
    }
    tree_->expandAll();
    fitColumns();
    fitHeight();
    updateGeometry();
}

void ModuleTreeView::setHeightForRows(int maxRows) {
    heightRows_ = maxRows;
    fitHeight();
}

void ModuleTreeView::fitHeight() {
    if (heightRows_ <= 0) return;
    int rows = 0;
    for (QTreeWidgetItemIterator it(tree_); *it && rows < heightRows_; ++it) ++rows;
    // The drawn row once laid out; before that, the delegate's estimate.
    const QTreeWidgetItem* top = tree_->topLevelItem(0);
    const int drawn = top ? tree_->visualItemRect(top).height() : 0;
    const int rowHeight =
        drawn > 0 ? drawn : static_cast<QAbstractItemView*>(tree_)->sizeHintForRow(0);
    // Room for a sideways scroll bar: a narrow dock scrolls the columns rather than
    // eliding names.
    tree_->setFixedHeight(tree_->header()->sizeHint().height() + std::max(rows, 3) * rowHeight +
                          2 * tree_->frameWidth() + tree_->horizontalScrollBar()->sizeHint().height());
}

void ModuleTreeView::fitColumns() {
    for (int c = 0; c < tree_->columnCount(); ++c) tree_->resizeColumnToContents(c);
    contentWidth_ = 0;
    for (int c = 0; c < tree_->columnCount(); ++c) contentWidth_ += tree_->columnWidth(c);
    int others = 0;
    for (int c = kTypeColumn; c < tree_->columnCount(); ++c) others += tree_->columnWidth(c);
    const int room = tree_->viewport()->width() - others;
    if (room > tree_->columnWidth(kModuleColumn)) tree_->setColumnWidth(kModuleColumn, room);
}

int ModuleTreeView::preferredWidth() const {
    return contentWidth_ + 2 * tree_->frameWidth() + tree_->verticalScrollBar()->sizeHint().width() + 4;
}

QSize ModuleTreeView::sizeHint() const {
    const QSize base = QWidget::sizeHint();
    return {modules_.empty() ? base.width() : preferredWidth(), base.height()};
}

void ModuleTreeView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitColumns();
    fitHeight();
}

QTreeWidgetItem* ModuleTreeView::itemFor(const QString& layer) const {
    for (QTreeWidgetItemIterator it(tree_); *it; ++it)
        if ((*it)->data(kModuleColumn, kLayerRole).toString() == layer) return *it;
    return nullptr;
}

QString ModuleTreeView::typeOf(const QString& layer) const {
    for (const ScriptModuleInfo& module : modules_)
        if (layerNameOf(module) == layer) return QString::fromStdString(module.type);
    return {};
}

bool ModuleTreeView::highlightModule(const QString& layer, const QString& why) {
    QTreeWidgetItem* item = itemFor(layer);
    if (!item) return false;
    if (!highlighted_.isEmpty() && highlighted_ != layer) fill();  // one culprit at a time
    item = itemFor(layer);
    highlighted_ = layer;
    QFont bold = item->font(kModuleColumn);
    bold.setBold(true);
    for (int c = 0; c < tree_->columnCount(); ++c) {
        item->setFont(c, bold);
        item->setForeground(c, culpritColor());
        item->setToolTip(c, why);
    }
    item->setIcon(kModuleColumn, culpritMarker(tree_->fontMetrics().height()));
    for (QTreeWidgetItem* parent = item->parent(); parent; parent = parent->parent())
        parent->setExpanded(true);
    tree_->setCurrentItem(item);
    item->setSelected(true);
    fitColumns();  // bold is wider
    tree_->scrollToItem(item, QAbstractItemView::PositionAtCenter);
    return true;
}

void ModuleTreeView::followFocusedRun(RunSet* set) {
    connect(set, &RunSet::changed, this, [this, set](RunId run, RunChanges what) {
        const bool focusMoved = what & (RunChange::Focus | RunChange::Removed);
        if (!focusMoved && !(run == set->focusedId() && (what & RunChange::NonFinite))) return;
        if (const RunModel* focused = set->focused()) showRun(focused->nonFinite());
    });
}

void ModuleTreeView::showRun(const NonFiniteFacts& facts) {
    if (facts.modules().empty()) {
        if (!isEmpty()) clear();
        return;
    }
    const QString file = facts.modulesFile();
    if (facts.modules() != modules_)
        setModules(facts.modules(), file.isEmpty() ? tr("From the run's records")
                                                   : tr("From the run's records: %1").arg(file));
    const auto& record = facts.record();
    if (!record || record->event.layer == kLossLayerName) return;
    const NonFiniteEvent& event = record->event;
    const QString culprit = QString::fromStdString(event.layer);
    if (culprit != highlighted_)
        highlightModule(culprit, tr("First non-finite value of the run: step %1, %2, %3")
                                     .arg(event.step)
                                     .arg(QString::fromStdString(event.phase), QString::fromStdString(event.tensor)));
}

}  // namespace ampscope::ui
