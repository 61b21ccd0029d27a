#include "feed/SeedRunSequence.h"

#include <QTimer>

#include "engine/SystemInfo.h"
#include "feed/RunControl.h"
#include "run/EventSchema.h"
#include "run/RunNaming.h"
#include "runset/RunSet.h"
#include "stats/SeedBand.h"

namespace ampscope::ui {

SeedRunSequence::SeedRunSequence(RunControl* control, RunSet* set, QObject* parent)
    : QObject(parent), control_(control), set_(set) {
    connect(control_, &RunControl::runEnded, this, &SeedRunSequence::onRunEnded);
}

bool SeedRunSequence::start(const RunConfig& config, int seeds) {
    if (running_ || control_->isActive() || seeds < stats::kMinimumSeeds) return false;
    config_ = config;
    seeds_ = seeds;
    ids_.clear();
    running_ = true;
    startSeed(1);
    return running_;
}

void SeedRunSequence::startSeed(int k) {
    current_ = k;
    // Runs share the process: without the reset each would report the largest peak so far.
    resetPeakResidentBytes();
    const RunConfig seed = seedRunConfig(config_, runName(config_), k);
    if (!control_->start(seed, false, QString::fromStdString(seed.name))) {
        running_ = false;
        return;
    }
    ids_.push_back(control_->liveRun());
    for (const RunId id : ids_) set_->setCompared(id, true);  // the band grows beside the live seed
    Q_EMIT runStarted(k, seeds_);
}

void SeedRunSequence::onRunEnded(const RunSummary& summary) {
    if (!running_) return;
    if (summary.status != run_status::kFinished) {
        running_ = false;  // stopped or failed: the other seeds are not trained
        return;
    }
    if (current_ < seeds_) {
        // After the window has finished handling this run's end.
        QTimer::singleShot(0, this, [this] {
            if (running_) startSeed(current_ + 1);
        });
        return;
    }
    running_ = false;
    Q_EMIT finished();
}

}  // namespace ampscope::ui
