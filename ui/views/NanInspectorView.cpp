#include "views/NanInspectorView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "runset/RunFacts.h"
#include "runset/RunSet.h"
#include "views/ModuleTreeView.h"
#include "views/StatsFramesTable.h"
#include "run/EventSchema.h"
#include "probes/NonFiniteText.h"
#include "probes/Fp16Classes.h"
#include "probes/ProbeRecords.h"

namespace ampscope::ui {

namespace {

const QString kLoss = QStringLiteral("loss");

QString phaseText(const std::string& phase) {
    if (phase == "forward") return QObject::tr("forward pass");
    if (phase == "backward") return QObject::tr("backward pass");
    return QString::fromStdString(phase);
}

QString tensorText(const std::string& tensor) {
    if (tensor == "activation") return QObject::tr("its output (activation)");
    if (tensor == "gradient") return QObject::tr("the gradient arriving at its output");
    if (tensor == "loss") return QObject::tr("the loss value");
    if (tensor == "param_grad") return QObject::tr("its parameter gradients");
    return QString::fromStdString(tensor);
}

// A rank that received the value from another one: where to look instead.
QString arrivalText(const NonFiniteEvent& e) {
    if (e.via != nonfinite_via::kGradientAllReduce) return {};
    return QObject::tr("<br>None of this rank's activations or activation gradients were non-finite: "
                       "the value arrived from another rank through the gradient all-reduce. Open "
                       "the job folder to see which rank it came from.");
}

}  // namespace

NanInspectorView::NanInspectorView(RunSet* set, QWidget* parent) : QWidget(parent), set_(set) {
    setObjectName(QStringLiteral("nanInspector"));

    runBox_ = new QComboBox(this);
    runBox_->setObjectName(QStringLiteral("nanRun"));
    runBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    runBox_->setToolTip(tr("Whose first NaN/Inf is shown: choosing a run focuses it in every view"));
    connect(runBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updatingChooser_ && runBox_->currentIndex() >= 0) set_->focus(runBox_->currentData().toInt());
    });

    header_ = new QLabel(this);
    header_->setObjectName(QStringLiteral("nanHeader"));
    header_->setWordWrap(true);
    header_->setTextFormat(Qt::RichText);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    rerunButton_ = new QPushButton(tr("Rerun with the layer kept in fp32"), this);
    rerunButton_->setObjectName(QStringLiteral("rerunKeepFp32"));
    connect(rerunButton_, &QPushButton::clicked, this, [this] {
        const QString layer = culpritLayer();
        if (!layer.isEmpty() && layer != kLoss) Q_EMIT rerunWithLayerInFp32(layer);
    });

    auto* runRow = new QHBoxLayout;
    runRow->addWidget(new QLabel(tr("Run:"), this));
    runRow->addWidget(runBox_);
    runRow->addStretch(1);
    auto* top = new QHBoxLayout;
    top->addWidget(header_, 1);
    top->addWidget(rerunButton_, 0, Qt::AlignTop);

    layerList_ = new QListWidget(this);
    layerList_->setObjectName(QStringLiteral("nanLayers"));
    layerList_->setMaximumWidth(220);
    layerList_->setToolTip(tr("The model's layers in forward order; click one to find its rows"));
    connect(layerList_, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { table_->scrollToLayer(item->data(Qt::UserRole).toString()); });

    table_ = new StatsFramesTable(this);
    tableNote_ = new QLabel(this);
    tableNote_->setWordWrap(true);
    tableNote_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto* tableBox = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(tableNote_);
    tableLayout->addWidget(table_, 1);

    // A user's TorchScript model: its module tree replaces the flat list (showModuleTree).
    moduleTree_ = new ModuleTreeView(this);
    moduleTree_->setObjectName(QStringLiteral("nanModuleTree"));
    moduleTree_->setMinimumWidth(200);
    moduleTree_->setToolTip(tr("Your model's modules; click one to find its rows"));
    moduleTree_->hide();
    connect(moduleTree_, &ModuleTreeView::moduleActivated, this, [this](const QString& layer) { table_->scrollToLayer(layer); });

    splitter_ = new QSplitter(Qt::Horizontal, this);
    auto* splitter = splitter_;
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(layerList_);
    splitter->addWidget(moduleTree_);
    splitter->addWidget(tableBox);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 0);
    splitter->setStretchFactor(2, 1);

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(runRow);
    main->addLayout(top);
    main->addWidget(splitter, 1);

    connect(set_, &RunSet::changed, this, &NanInspectorView::onChanged);
    updateRunChooser();
    showFocused();
}

void NanInspectorView::onChanged(RunId run, RunChanges what) {
    if (what & (kShownRunsChange | RunChange::Identity)) updateRunChooser();
    if (what & (RunChange::Added | RunChange::Removed | RunChange::Focus)) {
        showFocused();
        return;
    }
    if (run != set_->focusedId() || !(what & RunChange::NonFinite)) return;
    showFocused();
    if (hasEvent() && announced_.insert(run).second) Q_EMIT nonFiniteFound();
}

void NanInspectorView::updateRunChooser() {
    updatingChooser_ = true;
    runBox_->clear();
    for (const RunModel* run : set_->runs()) {
        const int64_t step = run->firstNonFiniteStep();
        runBox_->addItem(step >= 0 ? tr("%1 \u00B7 non-finite at step %2").arg(run->name()).arg(step)
                                   : tr("%1 \u00B7 no non-finite value").arg(run->name()),
                         run->id());
        QPixmap swatch(10, 10);
        swatch.fill(run->colour());
        runBox_->setItemIcon(runBox_->count() - 1, QIcon(swatch));
    }
    runBox_->setCurrentIndex(runBox_->findData(set_->focusedId()));
    runBox_->setEnabled(runBox_->count() > 1);
    updatingChooser_ = false;
}

void NanInspectorView::showFocused() {
    const RunModel* focused = set_->focused();
    facts_ = focused ? &focused->nonFinite() : nullptr;
    if (focused) {
        moduleTree_->showRun(*facts_);
    } else {
        moduleTree_->clear();
    }
    showModuleTree(!moduleTree_->isEmpty());
    if (hasEvent())
        showFoundEvent();
    else
        showNoEvent();
}

void NanInspectorView::showModuleTree(bool show) {
    if (show == !moduleTree_->isHidden()) return;
    moduleTree_->setVisible(show);
    layerList_->setVisible(!show);
    if (show) {
        // Qualified names, a type and two narrow columns: wider than the flat list, but
        // the statistics keep at least half the dock. (The splitter may not be laid out
        // yet: the table, stretching, takes what a wider dock adds later.)
        const int treeWidth = std::clamp(moduleTree_->preferredWidth(), 240, 480);
        const int total = std::max(splitter_->width(), treeWidth + 320);
        splitter_->setSizes({0, treeWidth, total - treeWidth});
    }
}

bool NanInspectorView::hasEvent() const {
    return facts_ && facts_->record().has_value();
}

QString NanInspectorView::culpritLayer() const {
    return hasEvent() ? QString::fromStdString(facts_->record()->event.layer) : QString();
}

QString NanInspectorView::headerText() const {
    return header_->text();
}

void NanInspectorView::showNoEvent() {
    const std::string locateMode = facts_ ? facts_->locateMode() : std::string();
    if (!facts_)
        header_->setText(tr("<b>No run yet.</b> The first NaN or Inf of a run shows here."));
    else
        header_->setText(locateMode == "off"
                             ? tr("<b>The non-finite locator is off in this run</b> "
                                  "(probes.locate_nonfinite = off).")
                         : locateMode == "always"
                             ? tr("<b>No non-finite value so far.</b> Every layer's output and "
                                  "gradient, and the loss, are checked each step.")
                             : tr("<b>No non-finite value so far.</b> Each step's loss and "
                                  "gradients are checked; the first step that goes non-finite is "
                                  "run again with every layer's output and gradient checked."));
    table_->clearFrames();
    tableNote_->setText(table_->note());
    fillLayerList();
    updateButton();
}

// How the event was found, as a sentence after the header line.
QString NanInspectorView::locatedByText(const NonFiniteEvent& e) const {
    QString text;
    if (e.locatedBy == nonfinite_located_by::kReplay)
        text = tr("<br>Found by running step %1 again with every layer checked; the columns "
                  "before it are the probe steps' statistics.")
                   .arg(e.step);
    if (e.replayMissedStep > 0)
        text += tr("<br>A replay of step %1 did not reproduce its non-finite value (a kernel "
                   "that gives another result the second time); every step was checked from "
                   "then on.")
                    .arg(e.replayMissedStep);
    return text;
}

// Where the event was, as the header's words: a layer of the zoo, or a module of the
// user's model by its qualified name and type.
QString NanInspectorView::culpritText(const NonFiniteEvent& e) const {
    const QString layer = QString::fromStdString(e.layer);
    if (e.layer == kLossLayerName) return tr("the <b>loss</b>");
    if (moduleTree_->isEmpty()) return tr("layer <b>%1</b>").arg(layer.toHtmlEscaped());
    const QString type = moduleTree_->typeOf(layer);
    const QString typed = type.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(type.toHtmlEscaped());
    if (layer == ModuleTreeView::modelItselfName())
        return tr("the parameters of the model itself, layer <b>%1</b>%2").arg(layer.toHtmlEscaped(), typed);
    return tr("module <b>%1</b>%2").arg(layer.toHtmlEscaped(), typed);
}

void NanInspectorView::showFoundEvent() {
    const NonFiniteEvent& e = facts_->record()->event;
    const QString where = culpritText(e);
    // Found by a replay: the first operator whose output was not finite (it may sit in a
    // module below the probed layer, which is where the search for a cause starts).
    QString op;
    if (const std::string words = describeFirstOperator(e); !words.empty())
        op = tr("<br>First operator with a non-finite output: %1")
                 .arg(QString::fromStdString(words).toHtmlEscaped());
    header_->setText(
        tr("<b style='color:#b71c1c'>First non-finite value:</b> step <b>%1</b> \u00B7 %2 \u00B7 "
           "%3 \u00B7 %4 \u00B7 <b>%5</b> of %6 elements")
            .arg(e.step)
            .arg(where, phaseText(e.phase), tensorText(e.tensor).toHtmlEscaped(),
                 nonFiniteCountsText(e.nan, e.posInf, e.negInf))
            .arg(e.numel) +
        op + arrivalText(e) + locatedByText(e));
    table_->showFrames(*facts_->record(), facts_->layers().names());
    tableNote_->setText(table_->note());
    fillLayerList();
    updateButton();
}

void NanInspectorView::fillLayerList() {
    layerList_->clear();
    const QString culprit = culpritLayer();
    QStringList names = facts_ ? facts_->layers().names() : QStringList();
    if (!names.contains(kLoss)) names << kLoss;
    for (const QString& name : names) {
        auto* item = new QListWidgetItem(layerList_);
        item->setData(Qt::UserRole, name);
        if (hasEvent() && name == culprit) {
            item->setText(tr("%1  \u2190 first NaN/Inf (%2)")
                              .arg(name, QString::fromStdString(facts_->record()->event.phase)));
            item->setBackground(StatsFramesTable::culpritTint());
            item->setForeground(Qt::white);
            QFont bold = item->font();
            bold.setBold(true);
            item->setFont(bold);
            layerList_->setCurrentItem(item);
        } else {
            item->setText(name);
        }
    }
}

void NanInspectorView::updateButton() {
    const QString layer = culpritLayer();
    if (layer.isEmpty()) {
        rerunButton_->setText(tr("Rerun with the layer kept in fp32"));
        rerunButton_->setEnabled(false);
        rerunButton_->setToolTip(
            tr("Once a NaN/Inf appears, rerun the config with its layer "
               "kept in fp32 (precision.keep_fp32)"));
    } else if (layer == kLoss) {
        rerunButton_->setText(tr("Rerun with a layer kept in fp32"));
        rerunButton_->setEnabled(false);
        rerunButton_->setToolTip(
            tr("The loss is not a layer (and autocast computes it in fp32 "
               "already): look at the layer that feeds it"));
    } else if (facts_->recordedRun()) {
        // The lab did not train this run: the fix belongs in the user's script.
        rerunButton_->setText(tr("Keep %1 in fp32 in your script").arg(layer));
        rerunButton_->setEnabled(false);
        rerunButton_->setToolTip(
            tr("This run was recorded from a PyTorch script, so the lab cannot rerun it: run "
               "%1 outside torch.autocast (or cast its input to float32) there")
                .arg(layer));
    } else if (facts_->keptInFp32().contains(layer)) {
        rerunButton_->setText(tr("%1 is already kept in fp32").arg(layer));
        rerunButton_->setEnabled(false);
        rerunButton_->setToolTip(tr("This run already had %1 in precision.keep_fp32").arg(layer));
    } else {
        rerunButton_->setText(tr("Rerun with %1 kept in fp32").arg(layer));
        rerunButton_->setEnabled(true);
        rerunButton_->setToolTip(
            tr("Adds %1 to precision.keep_fp32 in the Configure panel and starts a new run")
                .arg(layer));
    }
}

}  // namespace ampscope::ui
