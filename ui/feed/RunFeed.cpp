#include "feed/RunFeed.h"

#include <nlohmann/json.hpp>

#include "engine/MetricStream.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"
#include "runset/RunSet.h"

namespace ampscope::ui {
namespace {

constexpr int kFollowMilliseconds = 33;
// One poll of a followed run reads at most this much, so opening a long run that is
// still being written never stalls a UI tick; the rest comes on the next ticks.
constexpr std::size_t kFollowBytesPerTick = 4u << 20;

RecordDispatcher::Hooks hooksFor(RunSet* set, RunId id) {
    RecordDispatcher::Hooks hooks;
    hooks.error = [set, id](const std::string& message) {
        set->setErrorMessage(id, QString::fromStdString(message));
    };
    return hooks;
}

}  // namespace

RunFeed::RunFeed(RunSet* set, RunModel* run, QObject* parent)
    : QObject(parent), runId_(run->id()), run_{run}, dispatcher_(run_, hooksFor(set, run->id())) {
    followTimer_.setInterval(kFollowMilliseconds);
    connect(&followTimer_, &QTimer::timeout, this, &RunFeed::pollFollower);
}

RunFeed::~RunFeed() = default;

void RunFeed::takeDrained(const DrainedMetrics& drained) {
    dispatcher_.takeDrained(drained);
    endBatch();
}

void RunFeed::follow(std::unique_ptr<RunFollower> follower) {
    follower_ = std::move(follower);
    followCaughtUp_ = false;
    failure_.clear();
    followTimer_.start();
    pollFollower();
}

void RunFeed::stopFollowing() {
    followTimer_.stop();
    follower_.reset();
}

bool RunFeed::isFollowing() const {
    return follower_ && followTimer_.isActive();
}

void RunFeed::pollFollower() {
    if (!follower_) return;
    try {
        const std::vector<nlohmann::json> records = follower_->poll(kFollowBytesPerTick);
        if (!records.empty()) {
            for (const nlohmann::json& record : records) dispatcher_.take(record);
            endBatch();
        }
    } catch (const std::exception& e) {
        fail(QString::fromUtf8(e.what()));
        return;
    }
    // Caught up with lines and not one record: no writer of runs wrote this, and no
    // later line can make the earlier ones readable.
    if (follower_->caughtUp()) {
        const std::string unreadable =
            noRecordText(follower_->directory(), follower_->sawRecord(), follower_->skippedLines());
        if (!unreadable.empty()) {
            fail(QString::fromStdString(unreadable));
            return;
        }
    }
    if (follower_->caughtUp() && !followCaughtUp_) {
        followCaughtUp_ = true;
        Q_EMIT followCaughtUp();
    }
    if (follower_->finished()) {
        stopFollowing();
        Q_EMIT followFinished();
    }
}

void RunFeed::fail(const QString& message) {
    stopFollowing();
    failure_ = message;
    Q_EMIT followFailed(message);
}

void RunFeed::endBatch() {
    dispatcher_.endBatch();
    Q_EMIT stepsShownChanged(dispatcher_.stepsDelivered());
}

}  // namespace ampscope::ui
