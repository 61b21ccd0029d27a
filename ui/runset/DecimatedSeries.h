#pragma once
// DecimatedSeries: one plotted quantity (x ascending, e.g. the step) held in bounded
// memory, plus what it takes to draw it at pixel resolution. The full data stays in the
// run directory; a view keeps what a plot can show of it.
//
// Contract:
// - append() takes points in non-decreasing x. The appended points are grouped, in
//   order, into buckets of pointsPerBucket() points (1 at first). Of each bucket the
//   series keeps its first point, its smallest and its largest finite y and its first
//   non-finite y (each once, in the order they occurred): at most 4 points. When
//   bucketLimit() buckets are full, neighbouring buckets merge pairwise and
//   pointsPerBucket() doubles, so size() <= maxKeptPoints() = 4 x bucketLimit() however
//   many points are appended, and below bucketLimit() points every point is kept.
//   What merging keeps is exact for the merged bucket: the series' extremes, every
//   spike that is a bucket's extreme and the first non-finite value always survive.
// - Running extents (minY/maxY over finite y, minPositiveY for log axes, lastX) cover
//   every appended point, and are O(1) to read, so plots set their axis ranges without
//   scanning data per frame. appendedCount() counts every appended point.
// - x(i)/y(i)/nearestIndex/lowerIndex address the kept points.
// - bucketFirsts(xs, ys): each bucket's first point, in order: the series sampled every
//   pointsPerBucket() appended points, so series appended at the same x's (a job's ranks)
//   are sampled at the same x's; below bucketLimit() points, every point.
// - view(xLow, xHigh, buckets) returns what to draw for that x range at that many pixel
//   columns: the kept points when they are few (<= 2 per column), else per column the
//   minimum and the maximum in the order they occurred, both at the column's middle x
//   (one stroke per column; columns are equal slices of [xLow, xHigh]). A column holding
//   only non-finite y yields one NaN point (a gap in the line). One point on each side
//   outside the range is included so lines reach the edges. O(kept points in range).
// Plain C++ (no Qt) so it is tested and benchmarked on its own.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace ampscope::ui {

class DecimatedSeries {
public:
    struct Point {
        double x;
        double y;
    };

    // 16384 buckets: a full view at 4096 pixel columns still has 4 buckets per column,
    // and a series costs at most 64 Ki points (1 MiB) whatever the run's length.
    static constexpr std::size_t kDefaultBucketLimit = 16384;
    // A member of a band of many runs (StepSeries, RunContext::bandMember): the band is
    // drawn from the members' bucket firsts, at least 1024 of them once the series is thinned
    // (bucket counts lie between half the limit and the limit): about one per pixel column of
    // a full-width plot at 1280x800, and a member drawn alone still gets a bucket's first
    // point, extremes and first non-finite value per column. A job of 512 ranks x 10^4 steps
    // then keeps about 3 points in 8 of each series instead of every one.
    static constexpr std::size_t kBandMemberBucketLimit = 2048;

    // bucketLimit is rounded up to an even number >= 2.
    explicit DecimatedSeries(std::size_t bucketLimit = kDefaultBucketLimit);

    void append(double x, double y);
    void clear();

    std::size_t size() const { return xs_.size(); }
    bool empty() const { return xs_.empty(); }
    double x(std::size_t i) const { return xs_[i]; }
    double y(std::size_t i) const { return ys_[i]; }
    const std::vector<double>& xs() const { return xs_; }
    const std::vector<double>& ys() const { return ys_; }

    std::int64_t appendedCount() const { return appended_; }
    std::size_t pointsPerBucket() const { return pointsPerBucket_; }
    std::size_t bucketLimit() const { return bucketLimit_; }
    std::size_t maxKeptPoints() const { return 4 * bucketLimit_; }

    bool hasFiniteY() const { return finiteCount_ > 0; }
    double minY() const { return minY_; }
    double maxY() const { return maxY_; }
    bool hasPositiveY() const { return minPositiveY_ < std::numeric_limits<double>::infinity(); }
    double minPositiveY() const { return minPositiveY_; }
    double firstX() const { return xs_.empty() ? 0.0 : xs_.front(); }
    double lastX() const { return appended_ == 0 ? 0.0 : lastX_; }

    // Index of the kept point whose x is nearest to `x` (size() when empty).
    std::size_t nearestIndex(double x) const;
    // First index with x_i >= x.
    std::size_t lowerIndex(double x) const;
    // y of the kept point nearest to x (NaN when empty): for a tooltip reading a second
    // series at the x the first one was hovered at.
    double yNear(double x) const;

    void view(double xLow, double xHigh, int buckets, std::vector<Point>& out) const;

    // Replaces xs and ys with each bucket's first point (see the contract).
    void bucketFirsts(std::vector<double>& xs, std::vector<double>& ys) const;

private:
    static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

    struct Extremes {
        std::size_t minIndex = kNone;
        std::size_t maxIndex = kNone;
        void take(std::size_t index, const std::vector<double>& ys);
    };

    // Reduces kept points [begin, end) (one bucket's candidates) to its representatives,
    // writing them from `to` on in xs_/ys_; returns the end of what it wrote.
    std::size_t keepRepresentatives(std::size_t begin, std::size_t end, std::size_t to);
    void mergeBucketPairs();
    Extremes scan(std::size_t begin, std::size_t end) const;
    void emitBucket(const Extremes& e, double x, std::vector<Point>& out) const;

    std::size_t bucketLimit_;
    std::vector<double> xs_;
    std::vector<double> ys_;
    std::vector<std::size_t> bucketStarts_;  // index in xs_ of each bucket's first kept point
    std::size_t pointsPerBucket_ = 1;
    std::size_t openCount_ = 0;  // points appended into the last bucket
    double openLow_ = std::numeric_limits<double>::infinity();    // its smallest finite y kept
    double openHigh_ = -std::numeric_limits<double>::infinity();  // its largest
    std::int64_t appended_ = 0;
    std::size_t finiteCount_ = 0;
    double minY_ = std::numeric_limits<double>::infinity();
    double maxY_ = -std::numeric_limits<double>::infinity();
    double minPositiveY_ = std::numeric_limits<double>::infinity();
    double lastX_ = 0.0;
};

}  // namespace ampscope::ui
