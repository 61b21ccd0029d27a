#pragma once
// DecimatedSeries: the full history of one plotted quantity (x ascending, e.g. the step)
// plus what it takes to draw a million points at pixel resolution.
//
// Contract:
// - append() takes points in non-decreasing x; every point is kept (the model of the
//   plot is the full data, the graph shows a view of it).
// - Running extents (minY/maxY over finite y, minPositiveY for log axes, x range) are
//   O(1) to read, so plots set their axis ranges without scanning data per frame.
// - view(xLow, xHigh, buckets) returns what to draw for that x range at that many pixel
//   columns: the raw points when they are few (<= 2 per bucket), else per bucket the
//   minimum and the maximum in the order they occurred, both at the bucket's middle x
//   (the envelope a line through all points would paint, one stroke per column; buckets
//   are equal slices of [xLow, xHigh]). A bucket holding only non-finite y yields one
//   NaN point (a gap in the line). One point on each side outside the range is included
//   so lines reach the edges.
// - Cost of view(): O(points in range) while that is at most ~64 points per bucket;
//   beyond, a coarse per-block min/max index kept up to date on append makes it
//   O(buckets + blocks in range) (blocks: at most 16384, merged pairwise as data grows).
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

    void append(double x, double y);
    void clear();

    std::size_t size() const { return xs_.size(); }
    bool empty() const { return xs_.empty(); }
    double x(std::size_t i) const { return xs_[i]; }
    double y(std::size_t i) const { return ys_[i]; }
    const std::vector<double>& xs() const { return xs_; }
    const std::vector<double>& ys() const { return ys_; }

    bool hasFiniteY() const { return finiteCount_ > 0; }
    double minY() const { return minY_; }
    double maxY() const { return maxY_; }
    bool hasPositiveY() const { return minPositiveY_ < std::numeric_limits<double>::infinity(); }
    double minPositiveY() const { return minPositiveY_; }
    double firstX() const { return xs_.empty() ? 0.0 : xs_.front(); }
    double lastX() const { return xs_.empty() ? 0.0 : xs_.back(); }

    // Index of the point whose x is nearest to `x` (size() when empty).
    std::size_t nearestIndex(double x) const;
    // First index with x_i >= x.
    std::size_t lowerIndex(double x) const;

    void view(double xLow, double xHigh, int buckets, std::vector<Point>& out) const;

    // Points per block of the coarse index (grows as the series grows); exposed for tests.
    std::size_t pointsPerBlock() const { return pointsPerBlock_; }

private:
    static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
    static constexpr std::size_t kMaxBlocks = 16384;

    struct Block {
        std::size_t minIndex = kNone;  // index of the smallest finite y in the block
        std::size_t maxIndex = kNone;  // index of the largest finite y in the block
    };
    struct Extremes {
        std::size_t minIndex = kNone;
        std::size_t maxIndex = kNone;
        void take(std::size_t index, const std::vector<double>& ys);
        void merge(const Extremes& other, const std::vector<double>& ys);
    };

    void addToBlocks(std::size_t index);
    void mergeBlockPairs();
    Extremes scanRaw(std::size_t begin, std::size_t end) const;
    Extremes scanRange(std::size_t begin, std::size_t end) const;  // uses blocks when it pays
    void emitBucket(const Extremes& e, double x, std::vector<Point>& out) const;

    std::vector<double> xs_;
    std::vector<double> ys_;
    std::vector<Block> blocks_;
    std::size_t pointsPerBlock_ = 64;
    std::size_t finiteCount_ = 0;
    double minY_ = std::numeric_limits<double>::infinity();
    double maxY_ = -std::numeric_limits<double>::infinity();
    double minPositiveY_ = std::numeric_limits<double>::infinity();
};

}  // namespace ampscope::ui
