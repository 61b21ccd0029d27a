#pragma once
// RunOpener: opening and following recorded runs into the run set. One entry for a path
// (a run directory, a recorded job's folder of ranks, a scenario's output folder) and one
// for a run source that is followed (a RunFollower: a local directory still being
// written; the hook a remote follower plugs into).
//
// Contract:
// - open(path): every run the path holds (runSetDirectories) joins the set: a complete
//   one read at once (streamed in batches: bounded memory; progress() about every
//   100 ms), one still being written followed live until its summary appears. A single
//   run is focused; a set of runs (ranks, a scenario's runs) is compared as a whole
//   (the runs already in the list are unchecked) and the run that went non-finite first
//   is focused. false with one line when the path holds no run; a run of a set that does
//   not read is skipped and said (message()).
// - open(ssh://[user@]host[:port]/path): a run or job folder on another machine, through
//   the user's ssh: RemoteRunFollowing keeps a local copy that is opened as above and
//   named host:path in every line; while it is retried the status line says
//   "reconnecting…" (progress()). Opening anything else ends ssh and removes the copy;
//   the runs read from it stay in the set as they were.
// - A job folder of torch.distributed ranks: the message names the rank its first NaN
//   came from (JobNonFiniteOrigin.h); jobOrigin() keeps that sentence.
// - follow(follower, context): a followed run joins the set, focused and compared.
// - A followed run that leaves the set stops being followed.
// - runLoaded() once what was asked is in the set: for followed runs, once each has
//   caught up or failed (each is polled once within open(), so a small one has by then
//   and runLoaded comes before open() returns). message() says what was opened, for the
//   status bar, with one line per run refused and per summary.json whose fields are of
//   another type (RecordedEnd).
// - A run none of whose lines is a record (noRecordText) cannot be read at all: refused
//   with that line, like a directory the reader refuses. When every run an open added
//   failed before it caught up (a file of garbage larger than one poll reads),
//   unreadable() says why once runLoaded has come; open() had returned true.
#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runset/RunObserver.h"
#include "runset/RunChanges.h"

namespace ampscope {
class RunFollower;
}

namespace ampscope::ui {

class RemoteRunFollowing;
class RunFeed;
class RunSet;

class RunOpener : public QObject {
    Q_OBJECT
public:
    explicit RunOpener(RunSet* set, QObject* parent = nullptr);
    ~RunOpener() override;

    bool open(const QString& path, QString* error);
    RunId follow(std::unique_ptr<RunFollower> follower, const RunContext& context);
    void stopFollowing();
    bool isFollowing() const;
    // The ids of the runs the last open() added, in order.
    const std::vector<RunId>& openedRuns() const { return opened_; }
    // Steps of the runs the last open() added (or a followed one has so far).
    qint64 stepsShown() const;
    // The last job folder opened: which rank its NaN came from; empty: none went non-finite.
    const QString& jobOrigin() const { return jobOrigin_; }
    // A followed run that has ended: its summary.json's fields of another type, one line.
    QString endProblem(RunId run) const {
        const auto it = endProblems_.find(run);
        return it == endProblems_.end() ? QString() : it->second;
    }
    // After runLoaded: why nothing of the last open could be shown; empty when something was.
    const QString& unreadable() const { return unreadable_; }

Q_SIGNALS:
    // Opening a long run: how far it got ("Opening X… 40%, 123 steps").
    void progress(const QString& text);
    // A line for the status bar about what is now in the set, and the reader's warnings.
    void message(const QString& text, const QStringList& warnings);
    void runLoaded();
    void followFinished(ampscope::ui::RunId run);
    void followFailed(const QString& message);
    // open() returned false: its lines as one, for the window to show.
    void refused(const QString& line);

private:
    bool openLocal(const QString& path, QString* error);
    bool openRemote(const QString& address, QString* error);
    QString shown(const QString& directory) const;  // as people read it: ~/..., host:path
    void endRemote();
    // kNoRun with `failure` set when the directory is refused or fails on its first poll.
    RunId followDirectory(const QString& directory, bool focus, bool bandMember, QString* failure);
    // Which of the folder's runs a band will draw (OpenedBandMembers.h), one flag each.
    static std::vector<bool> bandMembersAmong(const std::vector<std::string>& directories);
    // failedAtOnce: a failure of the first poll removes the run and is said there, not signalled.
    RunId addFollowed(std::unique_ptr<RunFollower> follower, const RunContext& context, bool focus,
                      QString* failedAtOnce);
    void settle(RunId run);  // a run of the last open caught up, failed or left

    RunSet* set_;
    std::map<RunId, RunFeed*> feeds_;  // followed runs
    std::vector<RunId> opened_;
    std::vector<RunId> awaiting_;  // runs of the last open not yet caught up
    bool settling_ = false;        // open() returned; runLoaded waits for awaiting_
    std::set<RunId> failed_;       // runs of the last open that failed before catching up
    QStringList lateFailures_;     // their lines
    QString unreadable_;
    std::map<RunId, QString> endProblems_;
    std::unique_ptr<RemoteRunFollowing> remote_;  // the copy of a run on another machine
    std::vector<RunId> remoteRuns_;                // the runs read from it
    QString remoteOpenedText_;                     // its own status line, between connection news
    QString jobOrigin_;
};

}  // namespace ampscope::ui
