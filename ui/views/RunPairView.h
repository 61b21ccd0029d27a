#pragma once
// RunPairView: what the docks that stand two runs side by side share (format sweep,
// scaling, block scales): the focused run (A) against the run compared with it (B,
// RunSet::partner), each side a box with the run's caption over what the dock draws.
// The dock derived from it keeps only what it draws and when; which runs, their
// captions and which changes concern them are decided here once, so the three docks
// cannot come to disagree on them.
//
// Contract:
// - A is RunSet::focused(), B RunSet::partner() (nullptr while no run is compared with
//   A). B's side shows only when there is a B, and only then do the captions say "A"
//   and "B".
// - A change of the shown runs (kShownRunsChange) reads A and B again, shows their
//   captions, then calls showRuns(): the dock starts over for the new pair.
// - A change to one of the stores the dock reads (the `reads` given), of A or of B,
//   calls shownRunChanged(); changes of other runs or other stores do nothing.
// - followRuns(), last in the derived dock's constructor (once its widgets exist),
//   connects to the set and shows the first pair.
#include <QList>
#include <QString>
#include <QWidget>
#include <functional>

#include "runset/RunChanges.h"

class QHBoxLayout;
class QLabel;

namespace ampscope::ui {

class RunModel;
class RunSet;

class RunPairView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kA = 0;
    static constexpr int kB = 1;

protected:
    RunPairView(RunSet* set, RunChanges reads, QWidget* parent);

    // Makes A's and B's boxes (side kA, then kB) in a row, each with its caption (named
    // `titleName` + "A" or "B") and under it the widgets `fill` makes in the box, top to
    // bottom, the last one taking the height left. The caller adds the row to its layout.
    using SideFill = std::function<QList<QWidget*>(int side, QWidget* box)>;
    QHBoxLayout* makeSides(const QString& titleName, const SideFill& fill);
    void followRuns();

    const RunModel* sideRun(int side) const { return runs_[side]; }
    QWidget* sideBox(int side) const { return boxes_[side]; }

    // The pair changed (it may be the same runs again): the dock shows it from scratch.
    virtual void showRuns() = 0;
    // A store the dock reads changed for A or B.
    virtual void shownRunChanged() = 0;

private:
    void onChanged(RunId run, RunChanges what);
    void takePair();

    RunSet* set_;
    RunChanges reads_;
    QWidget* boxes_[2] = {};
    QLabel* titles_[2] = {};
    const RunModel* runs_[2] = {};
};

}  // namespace ampscope::ui
