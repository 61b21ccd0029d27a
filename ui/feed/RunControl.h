#pragma once
// RunControl: the window's run control over EngineBridge: start, pause, step once, stop,
// and the fix "rerun after this one". A started run joins the run set as its live run
// (focused, compared), fed by a RunFeed from the engine's drains; it is recorded under
// <runsRoot>/<timestamp>-<name> (RunDirectoryNaming.h).
//
// Contract:
// - start() refuses while a run is active (false); it names the run `name` (a scenario's
//   run name), or after its config (runDisplayName).
// - startAfterCurrent(config): starts it now, or, while a run is active, stops that run
//   and starts this one once it has ended.
// - The live run's status in the set: "training" while the engine runs, then the
//   summary's ("finished", "stopped", "error"); an engine failure is its error message.
// - Signals say what the status bar and the actions show; runEnded comes once per run,
//   after the engine's thread ended and the last batch reached the set.
#include <QObject>
#include <QString>
#include <optional>

#include "config/RunConfig.h"
#include "engine/RunSummary.h"
#include "runset/RunChanges.h"

namespace ampscope {
struct DrainedMetrics;
}

namespace ampscope::ui {

class EngineBridge;
class RunFeed;
class RunSet;

class RunControl : public QObject {
    Q_OBJECT
public:
    RunControl(RunSet* set, QString runsRoot, QObject* parent = nullptr);
    ~RunControl() override;

    EngineBridge* bridge() const { return bridge_; }
    bool isActive() const;
    bool stopRequested() const;
    RunId liveRun() const { return liveRun_; }
    // The directory of the last run started here (empty before the first).
    QString runDirectory() const { return runDirectory_; }
    qint64 stepsShown() const;
    qint64 lastStep() const;

    bool start(const RunConfig& config, bool singleStep = false, const QString& name = QString());
    void startAfterCurrent(const RunConfig& config);
    // Forgets a run startAfterCurrent queued (the window is closing).
    void dropPending() { pending_.reset(); }
    void pause(bool pause);
    // The active run takes one step and pauses; with none, `config` starts paused after
    // its first step.
    bool stepOnce(const RunConfig& config);
    bool isPaused() const;
    // A paused run's next step, run once with its precision map against fp32
    // (Engine::mapNextStep); false when no run is paused.
    bool mapNextStep();
    void stop();

Q_SIGNALS:
    // A run was started (before its first step): its directory and config.
    void runStarted(const QString& directory, const ampscope::RunConfig& config);
    // The engine planned its steps.
    void started(qint64 totalSteps, const QString& description);
    void paused();
    void resumed();
    void failed(const QString& message, bool inputError);
    // After each batch reached the set; `total` steps of the live run so far.
    void stepsShownChanged(qint64 total);
    void progressed(qint64 lastStep);
    void runEnded(const ampscope::RunSummary& summary);
    // Active or stopping changed: what the actions allow.
    void stateChanged();

private:
    void onMetrics(const DrainedMetrics& batch);
    void onRunEnded(const RunSummary& summary);

    RunSet* set_;
    QString runsRoot_;
    EngineBridge* bridge_ = nullptr;
    RunFeed* feed_ = nullptr;  // the live run's
    RunId liveRun_ = kNoRun;
    QString runDirectory_;
    std::optional<RunConfig> pending_;  // starts once the active run has ended
};

}  // namespace ampscope::ui
