#include "window/ProgressEstimator.h"

#include <algorithm>

namespace ampscope::ui {

void ProgressEstimator::start(int64_t totalSteps, double now, int64_t doneSteps) {
    total_ = std::max<int64_t>(0, totalSteps);
    done_ = std::max<int64_t>(0, doneSteps);
    startedAt_ = now;
    pausedTotal_ = 0.0;
    pausedAt_ = -1.0;
    samples_.clear();
    samples_.push_back({0.0, done_});
}

double ProgressEstimator::activeTime(double now) const {
    const double pausedNow = pausedAt_ >= 0.0 ? now - pausedAt_ : 0.0;
    return now - startedAt_ - pausedTotal_ - pausedNow;
}

void ProgressEstimator::update(int64_t doneSteps, double now) {
    done_ = std::clamp<int64_t>(doneSteps, 0, std::max<int64_t>(total_, doneSteps));
    const double active = activeTime(now);
    samples_.push_back({active, done_});
    // Keep one sample older than the window so the rate always spans the full window.
    while (samples_.size() > 2 && samples_[1].activeSeconds < active - kWindowSeconds)
        samples_.pop_front();
}

void ProgressEstimator::pause(double now) {
    if (pausedAt_ < 0.0) pausedAt_ = now;
}

void ProgressEstimator::resume(double now) {
    if (pausedAt_ < 0.0) return;
    pausedTotal_ += now - pausedAt_;
    pausedAt_ = -1.0;
}

double ProgressEstimator::fraction() const {
    if (total_ <= 0) return 0.0;
    return std::clamp(static_cast<double>(done_) / static_cast<double>(total_), 0.0, 1.0);
}

double ProgressEstimator::etaSeconds() const {
    if (samples_.size() < 2) return -1.0;
    const Sample& first = samples_.front();
    const Sample& last = samples_.back();
    const double seconds = last.activeSeconds - first.activeSeconds;
    const auto steps = static_cast<double>(last.done - first.done);
    if (seconds < 0.5 || steps <= 0.0) return -1.0;
    return static_cast<double>(std::max<int64_t>(0, total_ - done_)) * seconds / steps;
}

}  // namespace ampscope::ui
