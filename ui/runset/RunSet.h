#pragma once
// RunSet: the one data model of the window. Every run in view (the live one, a
// scenario's runs, opened and followed runs, a recorded job's ranks, runs added by hand)
// is held once, as a RunModel; views observe the set and show the focused run and, where
// contrast is the point, the compared ones. Reports build one too (it needs no window).
//
// Contract:
// - addRun(context) makes a run (empty, to be fed its records: RunModel is a
//   RunObserver) and returns it. It joins at the end of the list with the lowest free
//   colour slot (RunPalette.h), which it keeps while others come and go. Options say
//   whether it takes the focus and whether it is compared.
// - Focus: one run or none. Removing the focused run focuses the last one left.
// - shownRuns(): what a view shows: the focused run first, then the other compared runs
//   in list order. partner(): the focused run's partner in an A-against-B view, the first
//   other shown run.
// - changed(run, what): the one notification, once per change; a batch of records is
//   one notification (RunModel::endOfBatch) naming the stores that changed. Removed is
//   signalled while the run can still be read; it is destroyed after the signal.
// - Runs never leave by themselves: whoever feeds a run stops when it is Removed.
#include <QObject>
#include <memory>
#include <vector>

#include "runset/RunObserver.h"
#include "runset/RunChanges.h"
#include "runset/RunModel.h"

namespace ampscope::ui {

class RunSet : public QObject {
    Q_OBJECT
public:
    struct AddOptions {
        bool focus = true;
        bool compared = true;
    };

    explicit RunSet(QObject* parent = nullptr);
    ~RunSet() override;

    RunModel* addRun(const RunContext& context, AddOptions options);
    RunModel* addRun(const RunContext& context) { return addRun(context, AddOptions{}); }
    void removeRun(RunId id);
    void clear();

    void focus(RunId id);
    void setCompared(RunId id, bool compared);
    void setStatus(RunId id, const QString& status);
    // The run's name in legends and lists (a job's rank in a report: "job/rank-3").
    void setTitle(RunId id, const QString& title);
    void setErrorMessage(RunId id, const QString& message);
    // Focuses the run of `among` that went non-finite at the earliest step; the first of
    // them when none did (an empty list changes nothing).
    void focusFirstNonFinite(const std::vector<RunId>& among);

    int size() const { return static_cast<int>(runs_.size()); }
    bool empty() const { return runs_.empty(); }
    std::vector<const RunModel*> runs() const;
    RunModel* run(RunId id);
    const RunModel* run(RunId id) const;
    // The run at a place in the list (nullptr past the end).
    const RunModel* runAt(int index) const;
    int indexOf(RunId id) const;
    RunId focusedId() const { return focused_; }
    const RunModel* focused() const { return run(focused_); }
    std::vector<const RunModel*> shownRuns() const;
    bool isShown(RunId id) const;
    // The run shown against the focused one (A against B); nullptr when only one is shown.
    const RunModel* partner() const;
    // Of `among`, the run that went non-finite at the earliest step; kNoRun when none did.
    RunId firstNonFinite(const std::vector<RunId>& among) const;

Q_SIGNALS:
    void changed(ampscope::ui::RunId run, ampscope::ui::RunChanges what);

private:
    std::vector<std::unique_ptr<RunModel>> runs_;
    RunId focused_ = kNoRun;
    RunId nextId_ = 1;
};

}  // namespace ampscope::ui

Q_DECLARE_METATYPE(ampscope::ui::RunChanges)
