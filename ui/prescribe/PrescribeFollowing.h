#pragma once
// PrescribeFollowing: the runs a prescription is training, followed into the run set as
// they are written, and how far the whole prescription got (run k of M, the run's step,
// the time left).
//
// Contract:
// - takePhase(fields): the child's progress lines (PrescribeJob::phase): which arm trains,
//   the prefix of its run folders, its seeds, and M (the most runs; fewer once the
//   prescribed arm is skipped).
// - Every kPollMs, each run folder of the arm that is training (DIR/<prefix>seed-K) that
//   has started writing records (a non-empty events.jsonl) is opened through the window's
//   RunOpener: it joins the set, followed live. runs() lists them in the order they began.
// - progress(): run k = the runs begun so far, the latest run's last step of its total
//   (run_info's), and the ETA of all M runs from the mean step rate since the first run
//   began (the pauses between runs included), negative until there is a rate. progressChanged()
//   whenever one of those changed.
#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>
#include <vector>

#include "runset/RunChanges.h"

namespace ampscope::ui {

class RunOpener;
class RunSet;

struct PrescribeProgress {
    QString phase;     // "sensitivity", the arm training ("reference", "all mxfp4", "prescribed"), "done"
    int run = 0;       // k, from 1; 0 before the first run
    int runs = 0;      // M
    qint64 step = 0;   // the latest run's
    qint64 steps = 0;  // its total; 0 until its run_info is read
    double etaSeconds = -1.0;  // of the whole prescription; negative: not known yet
    QString text() const;      // "Run 2 of 6 (reference) · step 12 of 24 · about 1 min left"
};

class PrescribeFollowing : public QObject {
    Q_OBJECT
public:
    static constexpr int kPollMs = 250;

    PrescribeFollowing(RunSet* set, RunOpener* opener, const QString& directory, QObject* parent = nullptr);

    void takePhase(const QJsonObject& fields);
    // One last look for runs (the child has ended), and no more polling.
    void finish();
    const std::vector<RunId>& runs() const { return runs_; }
    const PrescribeProgress& progress() const { return progress_; }

Q_SIGNALS:
    void progressChanged(const ampscope::ui::PrescribeProgress& progress);

private:
    void poll();
    void update();

    RunSet* set_;
    RunOpener* opener_;
    QString directory_;
    QString prefix_;
    int seeds_ = 0;
    int runsBefore_ = 0;
    std::vector<QString> followed_;  // folders opened
    std::vector<RunId> runs_;
    PrescribeProgress progress_;
    PrescribeProgress shown_;  // as progressChanged last said it
    double firstRunAt_ = -1.0;  // seconds on clock_; negative: no run yet
    QElapsedTimer clock_;
    QTimer poll_;
};

}  // namespace ampscope::ui
