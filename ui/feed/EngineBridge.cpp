#include "feed/EngineBridge.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "probes/ProbeRecords.h"
#include "run/RecordCodec.h"

namespace ampscope::ui {

EngineBridge::EngineBridge(QObject* parent) : QObject(parent) {
    timer_.setInterval(kTickMilliseconds);
    // Precise: a coarse timer may stretch a 33 ms tick to 38 ms and make the plots stutter.
    timer_.setTimerType(Qt::PreciseTimer);
    connect(&timer_, &QTimer::timeout, this, &EngineBridge::tick);
    paceTimer_.setTimerType(Qt::PreciseTimer);
    connect(&paceTimer_, &QTimer::timeout, this, &EngineBridge::pacedStep);
}

EngineBridge::~EngineBridge() {
    timer_.stop();
    paceTimer_.stop();
    // Engine's destructor stops the run and joins its thread.
    engine_.reset();
}

bool EngineBridge::start(const RunConfig& config, const QString& runDirectory, bool singleStep) {
    if (engine_) return false;
    config_ = config;
    runDirectory_ = runDirectory;
    stepsReceived_ = 0;
    paused_ = false;
    stopRequested_ = false;
    endEventSeen_ = false;
    pacedStepsAsked_ = 0;
    lastStep_ = 0;
    engine_ = std::make_unique<Engine>(config, runDirectory.toStdString());
    if (singleStep) {
        engine_->stepOnce();
        paused_ = paced();  // the window shows the pause; the engine's event is the pace's
    } else if (paced()) {
        engine_->pause();  // held before its first step; the pace lets steps through
        paceTimer_.start();
    }
    engine_->start();
    timer_.start();
    if (paced() && !singleStep) pacedStep();
    return true;
}

void EngineBridge::pause() {
    if (!engine_) return;
    if (paced() && paceTimer_.isActive()) {
        // Already held by the pace: stop letting steps through, and say so ourselves.
        pauseFromPace(QString());
        return;
    }
    engine_->pause();
}

void EngineBridge::resume() {
    if (!engine_) return;
    if (paced()) {
        if (paused_) {
            paused_ = false;
            Q_EMIT resumed(lastStep_);
        }
        paceTimer_.start();
        pacedStep();
        return;
    }
    engine_->resume();
}

void EngineBridge::stepOnce() {
    if (!engine_) return;
    if (paced()) {
        paceTimer_.stop();
        if (!paused_) {
            paused_ = true;
            Q_EMIT paused(lastStep_);
        }
    }
    engine_->stepOnce();
}

void EngineBridge::mapNextStep() {
    if (!engine_) return;
    engine_->mapNextStep();
    stepOnce();
}

void EngineBridge::setStepsPerSecond(double stepsPerSecond) {
    const bool wasPaced = paced();
    pace_ = std::max(0.0, stepsPerSecond);
    if (paced()) paceTimer_.setInterval(std::max(1, static_cast<int>(1000.0 / pace_)));
    if (!engine_ || paused_) return;  // applied when the run starts or resumes
    if (paced() && !wasPaced) {
        engine_->pause();  // its Paused event is the pace's, not shown
        pacedStepsAsked_ = lastStep_;
        paceTimer_.start();
    } else if (!paced() && wasPaced) {
        paceTimer_.stop();
        engine_->resume();
    }
}

void EngineBridge::pacedStep() {
    if (!engine_ || paused_) return;
    pacedStepsAsked_ = std::max(pacedStepsAsked_, lastStep_);
    // At most two steps asked ahead of what arrived: a step slower than the pace is not
    // queued up behind, and a pause takes effect within a step or two.
    if (pacedStepsAsked_ - lastStep_ >= 2) return;
    ++pacedStepsAsked_;
    engine_->stepOnce();
}

void EngineBridge::pauseFromPace(const QString& why) {
    (void)why;
    paceTimer_.stop();
    if (paused_) return;
    paused_ = true;
    Q_EMIT paused(lastStep_);
}

QString EngineBridge::pacedWatchpoint(const DrainedMetrics& batch) const {
    const ProbeConfig& probes = config_.probes;
    if (probes.pause_on_nonfinite)
        for (const StreamedRecord& streamed : batch.records)
            if (record_codec::typeOf(streamed.record) == probe_record_type::kNonFinite)
                return QStringLiteral("nonfinite");
    if (probes.pause_scale_below > 0)
        for (const StepMetrics& m : batch.steps)
            if (m.scaleAfter > 0 && m.scaleAfter < probes.pause_scale_below) return QStringLiteral("scale");
    return QString();
}

void EngineBridge::stop() {
    if (!engine_) return;
    stopRequested_ = true;
    engine_->stop();
}

void EngineBridge::tick() {
    if (!engine_) {
        timer_.stop();
        return;
    }
    // Whether the thread had ended is read before draining, so that nothing it pushed
    // can be left behind in the stream once we decide the run is over.
    const bool ended = engine_->waitFor(0.0);
    DrainedMetrics batch = engine_->stream().drain();
    if (!batch.empty()) {
        stepsReceived_ += static_cast<qint64>(batch.steps.size());
        if (!batch.steps.empty()) lastStep_ = batch.steps.back().step;
        Q_EMIT metricsArrived(batch);
        for (const EngineEvent& event : batch.events) emitLifecycle(event);
        if (paced() && !paused_ && engine_) {
            const QString watchpoint = pacedWatchpoint(batch);
            if (!watchpoint.isEmpty()) pauseFromPace(watchpoint);
        }
    }
    if (!ended || !engine_) return;
    const RunSummary summary = engine_->summary();
    engine_->wait();
    // Reset before emitting: a slot may start the next run right away.
    engine_.reset();
    timer_.stop();
    paceTimer_.stop();
    paused_ = false;
    Q_EMIT runEnded(summary);
}

void EngineBridge::emitLifecycle(const EngineEvent& event) {
    switch (event.kind) {
        case EngineEvent::Kind::Started:
            Q_EMIT started(event.totalSteps, QString::fromStdString(event.message));
            break;
        case EngineEvent::Kind::EpochEnded:
            Q_EMIT epochEnded(event.epoch);
            break;
        case EngineEvent::Kind::Paused:
            // Under a pace the engine is held paused on purpose; the user's pauses are
            // reported by pause() and stepOnce().
            if (paced() || paused_) break;
            paused_ = true;
            Q_EMIT paused(event.step);
            break;
        case EngineEvent::Kind::Resumed:
            if (!paused_) break;  // leaving the pace, not a pause the window showed
            paused_ = false;
            Q_EMIT resumed(event.step);
            break;
        case EngineEvent::Kind::Error:
            endEventSeen_ = true;
            Q_EMIT failed(QString::fromStdString(event.message), event.inputError);
            break;
        case EngineEvent::Kind::Finished:
        case EngineEvent::Kind::Stopped:
            endEventSeen_ = true;
            break;
    }
}

}  // namespace ampscope::ui
