#pragma once
// PrecisionMapView: the "Precision map" dock. Where in a training step the run's precision
// mode loses accuracy against a reference: the step's ops in execution order, grouped by
// module, with each op's relative error and the error it adds itself (PrecisionMapPlot),
// the modules as a tree with the error entering and leaving each, forward and backward,
// and for a chosen op its values' log2|x| histogram in the run against the reference's
// (ExponentOverlayPlot). Numbers and their definitions: core/probes/PrecisionMapRecord.h.
//
// Contract:
// - Reads the run set: the focused run's PrecisionMapHistory (its "precision_map"
//   records); the step chooser lists its mapped steps and follows the newest until the
//   user picks another.
// - A click on an op (or setSelectedOp) selects its module in the tree, shows its
//   histograms and emits moduleSelected(module); a click on a module in the tree selects
//   its first op of the phase shown first.
// - The other compared runs (RunSet::shownRuns) with a map of the shown step are drawn
//   over it as further series, in their run colours (another mode's run of the config).
#include <QString>
#include <QWidget>
#include <cstdint>
#include <map>
#include <vector>

#include "probes/PrecisionMapRecord.h"
#include "runset/RunChanges.h"

class QComboBox;
class QLabel;
class QTreeWidget;

namespace ampscope::ui {

class ExponentOverlayPlot;
class PrecisionMapPlot;
class RunModel;
class RunSet;

class PrecisionMapView : public QWidget {
    Q_OBJECT
public:
    explicit PrecisionMapView(RunSet* set, QWidget* parent = nullptr);

    // The shown map's step; -1 when none.
    int64_t shownStep() const { return shownStep_; }
    void showStep(int64_t step);
    const PrecisionMapRecord* shownMap() const;
    void setSelectedOp(int index);
    int selectedOp() const;
    // The focused run's precision_map records that did not read.
    int64_t malformedRecords() const;
    // Runs drawn over the focused one (compared runs with a map of the shown step).
    int overlayCount() const { return overlayCount_; }

    PrecisionMapPlot* plot() const { return plot_; }
    ExponentOverlayPlot* histograms() const { return histograms_; }
    QTreeWidget* moduleTree() const { return tree_; }
    QComboBox* stepChooser() const { return stepBox_; }
    QLabel* summaryLabel() const { return summary_; }

Q_SIGNALS:
    void moduleSelected(const QString& module);

private:
    void onChanged(RunId run, RunChanges what);
    const RunModel* focusedRun() const;
    void updateChooser();
    void redraw();
    void fillTree(const PrecisionMapRecord& map);
    void selectModuleInTree(const QString& module);
    void showHistograms(int index);

    PrecisionMapPlot* plot_ = nullptr;
    ExponentOverlayPlot* histograms_ = nullptr;
    QTreeWidget* tree_ = nullptr;
    QComboBox* stepBox_ = nullptr;
    QLabel* summary_ = nullptr;

    RunSet* set_;
    RunId shownRun_ = kNoRun;
    int64_t shownStep_ = -1;
    int overlayCount_ = 0;
    bool followLatest_ = true;
    bool updatingChooser_ = false;
};

}  // namespace ampscope::ui
