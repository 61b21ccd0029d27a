#pragma once
// EngineBridge: the window's handle on one training run at a time.
//
// Contract:
// - start() creates an Engine for the config (recording into runDirectory when given)
//   and starts it; the engine trains on its own thread. A second start() while a run is
//   active is refused (returns false).
// - While a run is active a QTimer (~30 Hz, on the GUI thread) drains the engine's
//   MetricStream and emits ONE metricsArrived per tick that produced anything: all steps,
//   events and the latest snapshot since the previous tick. No signal per step.
// - After each batch, lifecycle events come as their own signals (started, epochEnded,
//   paused, resumed, failed) in stream order; runEnded comes once, after the engine's
//   thread has ended and the last batch was delivered, with the final summary.
// - pause/resume/stepOnce/stop are messages to the engine (it honours them between
//   steps; stop within one step). Engine errors end the run with failed() + runEnded();
//   the bridge is then ready for a new start().
// - Pace: setStepsPerSecond(n > 0) lets the run take at most about n steps a second, so
//   that a class can watch a tiny run unfold; 0 (the default) is as fast as it goes. It
//   can change at any time. The bridge paces by holding the engine paused and letting
//   one step through at a time (at most two asked ahead of what arrived); the window
//   sees no pause for that. A user's pause, resume and step once work as without a
//   pace, and a paced run still stops for pause_on_nonfinite and pause_scale_below
//   (the bridge notices them from the steps and records, since the engine, already
//   paused, cannot say so).
// - Destroying the bridge stops the run and joins the engine thread (blocking at most
//   about one step); a window that must not block asks stop() and waits for runEnded.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>

#include "config/RunConfig.h"
#include "engine/Engine.h"
#include "engine/MetricStream.h"
#include "engine/RunSummary.h"

namespace ampscope::ui {

class EngineBridge : public QObject {
    Q_OBJECT
public:
    static constexpr int kTickMilliseconds = 33;

    explicit EngineBridge(QObject* parent = nullptr);
    ~EngineBridge() override;

    // singleStep: the run pauses after its first step (asked before the thread starts,
    // so it cannot race ahead).
    bool start(const RunConfig& config, const QString& runDirectory, bool singleStep = false);
    void pause();
    void resume();
    void stepOnce();
    // One step, as stepOnce(), with its precision map (Engine::mapNextStep).
    void mapNextStep();
    void stop();
    void setStepsPerSecond(double stepsPerSecond);
    double stepsPerSecond() const { return pace_; }

    // A run was started and runEnded has not been emitted yet.
    bool isActive() const { return static_cast<bool>(engine_); }
    bool isPaused() const { return paused_; }
    bool stopRequested() const { return stopRequested_; }
    QString runDirectory() const { return runDirectory_; }
    const RunConfig& config() const { return config_; }
    // Steps received so far in this run.
    qint64 stepsReceived() const { return stepsReceived_; }

Q_SIGNALS:
    void metricsArrived(const ampscope::DrainedMetrics& batch);
    void started(qint64 totalSteps, const QString& description);
    void epochEnded(const ampscope::EpochMetrics& epoch);
    void paused(qint64 step);
    void resumed(qint64 step);
    void failed(const QString& message, bool inputError);
    void runEnded(const ampscope::RunSummary& summary);

private:
    void tick();
    void emitLifecycle(const EngineEvent& event);
    bool paced() const { return pace_ > 0.0; }
    void pacedStep();
    // A watchpoint the engine could not report while held paused; empty when none fired.
    QString pacedWatchpoint(const DrainedMetrics& batch) const;
    void pauseFromPace(const QString& why);

    std::unique_ptr<Engine> engine_;
    QTimer timer_;
    RunConfig config_;
    QString runDirectory_;
    qint64 stepsReceived_ = 0;
    bool paused_ = false;
    bool stopRequested_ = false;
    bool endEventSeen_ = false;
    double pace_ = 0.0;
    QTimer paceTimer_;
    qint64 pacedStepsAsked_ = 0;  // steps let through by the pace in this run
    qint64 lastStep_ = 0;
};

}  // namespace ampscope::ui

Q_DECLARE_METATYPE(ampscope::DrainedMetrics)
Q_DECLARE_METATYPE(ampscope::EpochMetrics)
Q_DECLARE_METATYPE(ampscope::RunSummary)
