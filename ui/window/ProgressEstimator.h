#pragma once
// ProgressEstimator: fraction done and time left of a run, for the progress bar.
//
// Contract:
// - Times are seconds on any monotonic clock the caller chooses (tests pass their own).
// - The rate is steps per second of *active* time over the last ~20 s (paused time does
//   not count), so the ETA follows a run that speeds up or slows down, and a pause does
//   not make it grow.
// - etaSeconds() is negative until there is a rate (at least two updates, 0.5 s apart).
#include <cstdint>
#include <deque>

namespace ampscope::ui {

class ProgressEstimator {
public:
    static constexpr double kWindowSeconds = 20.0;

    // doneSteps: steps already done when the plan became known (the engine announces its
    // plan and its first steps in the same tick).
    void start(int64_t totalSteps, double now, int64_t doneSteps = 0);
    void update(int64_t doneSteps, double now);
    void pause(double now);
    void resume(double now);

    int64_t totalSteps() const { return total_; }
    int64_t doneSteps() const { return done_; }
    double fraction() const;
    double etaSeconds() const;

private:
    double activeTime(double now) const;

    struct Sample {
        double activeSeconds;
        int64_t done;
    };
    int64_t total_ = 0;
    int64_t done_ = 0;
    double startedAt_ = 0.0;
    double pausedTotal_ = 0.0;
    double pausedAt_ = -1.0;  // < 0: not paused
    std::deque<Sample> samples_;
};

}  // namespace ampscope::ui
