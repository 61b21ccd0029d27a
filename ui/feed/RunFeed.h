#pragma once
// RunFeed: one source of records into one run of the run set: a live engine's drains, or
// a run directory still being written (followed on a timer until its summary appears).
// Records go through one RecordDispatcher into the run (RunModel), so a live run and a
// followed one arrive the same way; each batch ends with the run's one notification
// (RunSet::changed). A complete run directory is read at once (RunDirectoryLoading.h).
// The feed only feeds: whoever owns it stops it when the run leaves the set.
#include <QObject>
#include <QTimer>
#include <memory>
#include <vector>

#include "runset/RecordDispatcher.h"
#include "runset/RunChanges.h"

namespace ampscope {
class RunFollower;
struct DrainedMetrics;
}  // namespace ampscope

namespace ampscope::ui {

class RunModel;
class RunSet;

class RunFeed : public QObject {
    Q_OBJECT
public:
    // The run's error records reach the set as its error message (RunSet::setErrorMessage).
    RunFeed(RunSet* set, RunModel* run, QObject* parent = nullptr);
    ~RunFeed() override;

    RunId runId() const { return runId_; }
    // One tick of a live run: every step and record drained since the last one.
    void takeDrained(const DrainedMetrics& drained);
    // A run still being written: polled every 33 ms until its summary appears. The first
    // poll happens within follow(): a small run has caught up (or failed) when it returns.
    void follow(std::unique_ptr<RunFollower> follower);
    void stopFollowing();
    bool isFollowing() const;
    // Everything written so far is in the run (followCaughtUp was emitted).
    bool hasCaughtUp() const { return followCaughtUp_; }
    // Why following failed (followFailed's line); empty while it has not.
    const QString& failure() const { return failure_; }

    qint64 stepsShown() const { return dispatcher_.stepsDelivered(); }
    qint64 lastStep() const { return dispatcher_.lastStep(); }

Q_SIGNALS:
    // After each batch reached the run; `total` steps in it so far.
    void stepsShownChanged(qint64 total);
    // The followed run: everything written so far is in the set (once).
    void followCaughtUp();
    // The followed run has ended (its summary was written); following stopped.
    void followFinished();
    // Reading the followed run failed; following stopped, what was read stays. Also when
    // it caught up with lines none of which is a record: nothing of it can be shown.
    void followFailed(const QString& message);

private:
    void pollFollower();
    void fail(const QString& message);
    void endBatch();

    RunId runId_;
    std::vector<RunObserver*> run_;  // the one observer of the dispatcher
    RecordDispatcher dispatcher_;
    std::unique_ptr<RunFollower> follower_;
    bool followCaughtUp_ = false;
    QString failure_;
    QTimer followTimer_;
};

}  // namespace ampscope::ui
