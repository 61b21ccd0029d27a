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
// - Table: the frames of the steps before the event (StatsFramesTable.h), its rows in
//   the run's layer order; clicking a layer (or a module) scrolls to its rows.
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

namespace ampscope::ui {

class ModuleTreeView;
class NonFiniteFacts;
class RunSet;
class StatsFramesTable;

class NanInspectorView : public QWidget {
    Q_OBJECT
public:
    explicit NanInspectorView(RunSet* set, QWidget* parent = nullptr);

    bool hasEvent() const;
    // The layer named by the event ("loss" for the loss), empty without one.
    QString culpritLayer() const;
    QString headerText() const;

    QLabel* header() const { return header_; }
    StatsFramesTable* table() const { return table_; }
    QListWidget* layerList() const { return layerList_; }
    // A TorchScript model's modules (shown instead of the layer list for such a run).
    ModuleTreeView* moduleTree() const { return moduleTree_; }
    QPushButton* rerunButton() const { return rerunButton_; }
    QComboBox* runChooser() const { return runBox_; }

Q_SIGNALS:
    void rerunWithLayerInFp32(const QString& layer);
    void nonFiniteFound();

private:
    void onChanged(RunId run, RunChanges what);
    void updateRunChooser();
    void showFocused();
    void showNoEvent();
    void showFoundEvent();
    void fillLayerList();
    void updateButton();

    QLabel* header_ = nullptr;
    StatsFramesTable* table_ = nullptr;
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
    std::set<RunId> announced_;  // runs whose nonFiniteFound was emitted
    bool updatingChooser_ = false;
};

}  // namespace ampscope::ui
