#include "EngineBridge.h"

namespace ampscope::ui {

EngineBridge::EngineBridge(QObject* parent) : QObject(parent) {
    timer_.setInterval(kTickMilliseconds);
    // Precise: a coarse timer may stretch a 33 ms tick to 38 ms and make the plots stutter.
    timer_.setTimerType(Qt::PreciseTimer);
    connect(&timer_, &QTimer::timeout, this, &EngineBridge::tick);
}

EngineBridge::~EngineBridge() {
    timer_.stop();
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
    engine_ = std::make_unique<Engine>(config, runDirectory.toStdString());
    if (singleStep) engine_->stepOnce();
    engine_->start();
    timer_.start();
    return true;
}

void EngineBridge::pause() {
    if (engine_) engine_->pause();
}

void EngineBridge::resume() {
    if (engine_) engine_->resume();
}

void EngineBridge::stepOnce() {
    if (engine_) engine_->stepOnce();
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
    const bool hasContent =
        !batch.steps.empty() || !batch.events.empty() || batch.snapshot || batch.droppedSteps > 0;
    if (hasContent) {
        stepsReceived_ += static_cast<qint64>(batch.steps.size());
        Q_EMIT metricsArrived(batch);
        for (const EngineEvent& event : batch.events) emitLifecycle(event);
    }
    if (!ended || !engine_) return;
    const RunSummary summary = engine_->summary();
    engine_->wait();
    // Reset before emitting: a slot may start the next run right away.
    engine_.reset();
    timer_.stop();
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
            paused_ = true;
            Q_EMIT paused(event.step);
            break;
        case EngineEvent::Kind::Resumed:
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
