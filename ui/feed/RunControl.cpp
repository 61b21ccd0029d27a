#include "feed/RunControl.h"

#include "feed/EngineBridge.h"
#include "feed/RunDirectoryNaming.h"
#include "feed/RunFeed.h"
#include "engine/MetricStream.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

RunControl::RunControl(RunSet* set, QString runsRoot, QObject* parent)
    : QObject(parent), set_(set), runsRoot_(std::move(runsRoot)) {
    bridge_ = new EngineBridge(this);
    connect(bridge_, &EngineBridge::metricsArrived, this, &RunControl::onMetrics);
    connect(bridge_, &EngineBridge::started, this, &RunControl::started);
    connect(bridge_, &EngineBridge::paused, this, &RunControl::paused);
    connect(bridge_, &EngineBridge::resumed, this, &RunControl::resumed);
    connect(bridge_, &EngineBridge::failed, this, [this](const QString& message, bool inputError) {
        set_->setErrorMessage(liveRun_, message);
        Q_EMIT failed(message, inputError);
    });
    connect(bridge_, &EngineBridge::runEnded, this, &RunControl::onRunEnded);
    // The live run leaving the set (it cannot while it trains) leaves nothing to feed.
    connect(set_, &RunSet::changed, this, [this](RunId run, RunChanges what) {
        if (run == liveRun_ && (what & RunChange::Removed) && !isActive()) {
            delete feed_;
            feed_ = nullptr;
            liveRun_ = kNoRun;
        }
    });
}

RunControl::~RunControl() = default;

bool RunControl::isActive() const {
    return bridge_->isActive();
}

bool RunControl::stopRequested() const {
    return bridge_->stopRequested();
}

qint64 RunControl::stepsShown() const {
    return feed_ ? feed_->stepsShown() : 0;
}

qint64 RunControl::lastStep() const {
    return feed_ ? feed_->lastStep() : 0;
}

bool RunControl::start(const RunConfig& config, bool singleStep, const QString& name) {
    if (bridge_->isActive()) return false;
    const QString directory = newRunDirectory(runsRoot_, config);
    if (!bridge_->start(config, directory, singleStep)) return false;
    runDirectory_ = directory;
    delete feed_;
    RunModel* run = set_->addRun({config, name.isEmpty() ? runDisplayName(config) : name, directory, true});
    liveRun_ = run->id();
    set_->setStatus(liveRun_, QStringLiteral("training"));
    feed_ = new RunFeed(set_, run, this);
    connect(feed_, &RunFeed::stepsShownChanged, this, &RunControl::stepsShownChanged);
    Q_EMIT runStarted(directory, config);
    Q_EMIT stateChanged();
    return true;
}

void RunControl::startAfterCurrent(const RunConfig& config) {
    if (!bridge_->isActive()) {
        start(config);
        return;
    }
    pending_ = config;  // onRunEnded starts it
    stop();
}

void RunControl::pause(bool pause) {
    if (!bridge_->isActive()) return;
    if (pause)
        bridge_->pause();
    else
        bridge_->resume();
}

bool RunControl::stepOnce(const RunConfig& config) {
    if (bridge_->isActive()) {
        bridge_->stepOnce();
        return true;
    }
    return start(config, true);
}

bool RunControl::isPaused() const {
    return bridge_->isActive() && bridge_->isPaused();
}

bool RunControl::mapNextStep() {
    if (!isPaused()) return false;
    bridge_->mapNextStep();
    return true;
}

void RunControl::stop() {
    if (!bridge_->isActive()) return;
    bridge_->stop();
    Q_EMIT stateChanged();
}

void RunControl::onMetrics(const DrainedMetrics& batch) {
    if (!feed_) return;
    feed_->takeDrained(batch);
    if (!batch.steps.empty()) Q_EMIT progressed(feed_->lastStep());
}

void RunControl::onRunEnded(const RunSummary& summary) {
    set_->setStatus(liveRun_, QString::fromStdString(summary.status));
    Q_EMIT stateChanged();
    Q_EMIT runEnded(summary);
    if (pending_) {
        const RunConfig next = *pending_;
        pending_.reset();
        start(next);
    }
}

}  // namespace ampscope::ui
