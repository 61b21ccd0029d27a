#pragma once
// RunListView: the "Runs" dock, the window's one list of runs (the run set's, in its
// order). Each row: a check box (compare this run: every view shows it beside the
// focused one), a square in the run's colour and its name, and beneath, its badge
// (REAL / EMULATED / RECORDED, mode, device), how it stands (training, following,
// finished...) and the step where it first went non-finite.
//
// Contract:
// - Clicking a row focuses its run; checking it compares it; Remove takes the selected
//   run out of the set (not the run the engine is training). The dock only edits the
//   run set; Add run… asks whoever opens runs (addRunRequested).
// - Rows follow the set: added, removed, focused (bold, selected), checked, their facts
//   changed.
// - When the shown runs hold seeds of one config, each other shown run's row says, on a
//   third line, whether its final validation loss is inside or outside the first seed
//   group's band, with the test's p-value (SeedBandLabels.h); labelled again when the
//   shown runs change or a run ends an epoch, once per pass of the event loop however
//   many changes it brought (a job of 512 ranks opening adds 512 runs and ends 512
//   epochs: labelling at each would read every run's curve 512 times). A run added at
//   the end of the set adds its row alone.
#include <QWidget>
#include <map>

#include "runset/RunChanges.h"
#include "views/SeedBandLabels.h"

class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace ampscope::ui {

class RunModel;
class RunSet;

class RunListView : public QWidget {
    Q_OBJECT
public:
    explicit RunListView(RunSet* set, QWidget* parent = nullptr);

    QListWidget* list() const { return list_; }
    QPushButton* addButton() const { return addButton_; }
    QPushButton* removeButton() const { return removeButton_; }
    // The row of a run (-1: none).
    int rowOf(RunId id) const;
    // The text a run's row shows (both lines).
    static QString rowText(const RunModel& run);
    // With its seed band label (empty: none) on a line of its own.
    static QString rowText(const RunModel& run, const QString& bandLabel);

Q_SIGNALS:
    void addRunRequested();
    // The focused run's seed band label (empty: none), whenever it may have changed.
    void focusedBandLabelChanged(const QString& text, const QString& toolTip);

private:
    void onChanged(RunId run, RunChanges what);
    void rebuild();
    void updateRow(QListWidgetItem* item, const RunModel& run);
    void updateRemoveButton();
    // Labels the rows against the seed band again; true when a label changed.
    bool relabel();
    void scheduleRelabel();  // relabel once the event loop runs; rows updated if changed
    void appendRow(const RunModel& run);
    void announceFocusedLabel();

    std::map<RunId, SeedBandLabel> bandLabels_;
    std::map<RunId, std::size_t> epochsLabelled_;  // each run's epochs when last labelled
    bool relabelPending_ = false;

    RunSet* set_;
    QListWidget* list_ = nullptr;
    QPushButton* addButton_ = nullptr;
    QPushButton* removeButton_ = nullptr;
};

}  // namespace ampscope::ui
