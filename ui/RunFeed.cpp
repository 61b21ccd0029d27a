#include "RunFeed.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/MetricStream.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"

namespace ampscope::ui {
namespace {

constexpr int kFollowMilliseconds = 33;
// One poll of a followed run reads at most this much, so opening a long run that is
// still being written never stalls a UI tick; the rest comes on the next ticks.
constexpr std::size_t kFollowBytesPerTick = 4u << 20;
// Records per batch when a complete run is opened (views take them without redrawing).
constexpr std::size_t kOpenBatchRecords = 16384;
constexpr qint64 kRepaintMilliseconds = 100;

}  // namespace

RunFeed::RunFeed(RecordDispatcher::Hooks hooks, QObject* parent)
    : QObject(parent), dispatcher_(views_, std::move(hooks)) {
    followTimer_.setInterval(kFollowMilliseconds);
    connect(&followTimer_, &QTimer::timeout, this, &RunFeed::pollFollower);
}

RunFeed::~RunFeed() = default;

void RunFeed::addView(RunObserver* view) {
    if (view) views_.push_back(view);
}

void RunFeed::beginRun(const RunContext& context) {
    stopFollowing();
    dispatcher_.beginRun(context);
    dispatcher_.endBatch();  // the views show their empty state now
}

void RunFeed::takeDrained(const DrainedMetrics& drained) {
    dispatcher_.takeDrained(drained);
    endBatch();
}

void RunFeed::streamComplete(RunRecordReader& reader, const std::function<void(double)>& progress) {
    // The views keep bounded data (DecimatedSeries, thinned probe records), so they take
    // the run in batches and redraw once at the end.
    QElapsedTimer sinceRepaint;
    sinceRepaint.start();
    const auto afterBatch = [&] {
        if (sinceRepaint.elapsed() < kRepaintMilliseconds) return;
        const double fraction = reader.totalBytes() > 0 ? static_cast<double>(reader.bytesRead()) /
                                                              static_cast<double>(reader.totalBytes())
                                                        : 1.0;
        if (progress) progress(std::min(1.0, fraction));
        sinceRepaint.restart();
    };
    try {
        dispatchRunRecords(reader, dispatcher_, {}, afterBatch, kOpenBatchRecords);
    } catch (...) {
        endBatch();
        throw;
    }
    endBatch();
}

void RunFeed::follow(std::unique_ptr<RunFollower> follower) {
    follower_ = std::move(follower);
    followCaughtUp_ = false;
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
        stopFollowing();
        Q_EMIT followFailed(QString::fromUtf8(e.what()));
        return;
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

void RunFeed::endBatch() {
    dispatcher_.endBatch();
    Q_EMIT stepsShownChanged(dispatcher_.stepsDelivered());
}

}  // namespace ampscope::ui
