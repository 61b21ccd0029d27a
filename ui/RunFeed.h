#pragma once
// RunFeed: what feeds the window's run views. A live engine's drains, a complete run
// directory streamed in batches, and a run still being written (followed on a timer) all
// go through one RecordDispatcher, so the views get the same calls in the same order
// whatever the source. MainWindow keeps the chrome: status bar, progress, errors.
#include <QObject>
#include <QTimer>
#include <functional>
#include <memory>
#include <vector>

#include "RecordDispatcher.h"
#include "RunObserver.h"

namespace ampscope {
class RunFollower;
class RunRecordReader;
struct DrainedMetrics;
}  // namespace ampscope

namespace ampscope::ui {

class RunFeed : public QObject {
    Q_OBJECT
public:
    // hooks: what the window does with run_info and error records (RecordDispatcher).
    explicit RunFeed(RecordDispatcher::Hooks hooks, QObject* parent = nullptr);
    ~RunFeed() override;

    // A view fed from now on (also by runs already under way: it gets the next batch).
    void addView(RunObserver* view);

    // The views forget the previous run; a followed run stops being followed.
    void beginRun(const RunContext& context);
    // One tick of a live run: every step and record drained since the last one.
    void takeDrained(const DrainedMetrics& drained);
    // A complete run directory, all of it; progress(fraction read) about every 100 ms
    // (the window repaints there). Throws what the reader throws (read errors after the
    // start): what was read stays shown.
    void streamComplete(RunRecordReader& reader, const std::function<void(double fraction)>& progress);
    // A run still being written: polled every 33 ms until its summary appears.
    void follow(std::unique_ptr<RunFollower> follower);
    void stopFollowing();
    bool isFollowing() const;

    qint64 stepsShown() const { return dispatcher_.stepsDelivered(); }
    qint64 lastStep() const { return dispatcher_.lastStep(); }

Q_SIGNALS:
    // After each batch reached the views; `total` steps shown in this run so far.
    void stepsShownChanged(qint64 total);
    // The followed run: everything written so far is shown (once per run).
    void followCaughtUp();
    // The followed run has ended (its summary was written); following stopped.
    void followFinished();
    // Reading the followed run failed; following stopped, what was read stays shown.
    void followFailed(const QString& message);

private:
    void pollFollower();
    void endBatch();

    std::vector<RunObserver*> views_;
    RecordDispatcher dispatcher_;
    std::unique_ptr<RunFollower> follower_;
    bool followCaughtUp_ = false;
    QTimer followTimer_;
};

}  // namespace ampscope::ui
