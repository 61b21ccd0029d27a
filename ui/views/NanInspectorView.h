#pragma once
// NanInspectorView: the "NaN inspector" dock, per run: a chooser of the set's runs (each
// with the step where it first went non-finite; choosing one focuses it), then for the
// focused run its first non-finite value (step, layer, forward or backward, which
// tensor, how many NaN/+Inf/-Inf) in a header; the statistics frames of the steps before
// it as a table; the model's layer list with the culprit highlighted; and a button to
// rerun with that layer kept in fp32.
//
// Contract:
// - Reads the run set: the focused run's NonFiniteFacts (its first "nonfinite" record,
//   core/probes/ProbeRecords.md; its layers from run_info or the frames). Until one
//   arrives the header says "No non-finite value so far" (or that the locator is off in
//   this run).
// - Table: one column per frame (oldest first, the event's step last), rows per layer in
//   model order x tensor (activation = the layer's forward output, gradient = the
//   gradient arriving at it) x statistic (min, max, mean, max |x| of the finite elements,
//   and the non-finite counts), then the loss. A tensor with NaN/Inf in a frame has its
//   cells tinted; the culprit's cells at the event step are tinted strongly; a finite
//   value at or beyond fp16's largest (65504) is tinted orange. "—": no finite element;
//   empty and grey: not measured (no gradient reached the layer).
// - A user's TorchScript model (the run's model_modules record): the layer list gives way
//   to the model's module tree (ModuleTreeView), in which the culprit module is selected,
//   bold and marked red with its parents expanded; the header names the qualified module
//   and its type, and the first operator that went non-finite when the replay found it.
// - The rerun button names the layer; it is disabled for the loss (not a layer) and for a
//   layer the config already keeps in fp32. Clicking it emits rerunWithLayerInFp32.
// - nonFiniteFound is emitted once per run, when its event arrives while it is focused.
#include <QColor>
#include <QString>
#include <QWidget>
#include <optional>
#include <string>
#include <vector>

#include <set>

#include "probes/ProbeRecords.h"
#include "runset/RunChanges.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSplitter;
class QTableWidget;

namespace ampscope::ui {

class ModuleTreeView;
class NonFiniteFacts;
class RunSet;

class NanInspectorView : public QWidget {
    Q_OBJECT
public:
    explicit NanInspectorView(RunSet* set, QWidget* parent = nullptr);

    bool hasEvent() const;
    // The layer named by the event ("loss" for the loss), empty without one.
    QString culpritLayer() const;
    QString headerText() const;

    QLabel* header() const { return header_; }
    QTableWidget* table() const { return table_; }
    QListWidget* layerList() const { return layerList_; }
    // A TorchScript model's modules (shown instead of the layer list for such a run).
    ModuleTreeView* moduleTree() const { return moduleTree_; }
    QPushButton* rerunButton() const { return rerunButton_; }
    QComboBox* runChooser() const { return runBox_; }
    // Table row of a layer's tensor statistic ("activation"/"gradient", "min"...), -1: none.
    int rowOf(const QString& layer, const QString& tensor, const QString& stat) const;

    static QColor nonFiniteTint() { return QColor(255, 205, 210); }
    static QColor culpritTint() { return QColor(239, 83, 80); }
    static QColor fp16RangeTint() { return QColor(255, 224, 178); }

Q_SIGNALS:
    void rerunWithLayerInFp32(const QString& layer);
    void nonFiniteFound();

private:
    struct RowKey {
        QString layer;
        QString tensor;
        QString stat;
    };

    void onChanged(RunId run, RunChanges what);
    void updateRunChooser();
    void showFocused();
    void showNoEvent();
    void showFoundEvent();
    void fillTable();
    void fillLayerList();
    void updateButton();
    void scrollToLayer(const QString& layer);

    QLabel* header_ = nullptr;
    QTableWidget* table_ = nullptr;
    QListWidget* layerList_ = nullptr;
    ModuleTreeView* moduleTree_ = nullptr;
    QSplitter* splitter_ = nullptr;
    QPushButton* rerunButton_ = nullptr;
    QLabel* tableNote_ = nullptr;

    RunSet* set_;
    QComboBox* runBox_ = nullptr;
    const NonFiniteFacts* facts_ = nullptr;  // the focused run's
    QString locatedByText(const NonFiniteEvent& e) const;
    QString culpritText(const NonFiniteEvent& e) const;
    void showModuleTree(bool show);
    std::vector<RowKey> rows_;
    std::set<RunId> announced_;  // runs whose nonFiniteFound was emitted
    bool updatingChooser_ = false;
};

}  // namespace ampscope::ui
