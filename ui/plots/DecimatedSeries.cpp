#include "plots/DecimatedSeries.h"

#include <algorithm>
#include <cmath>

namespace ampscope::ui {

void DecimatedSeries::Extremes::take(std::size_t index, const std::vector<double>& ys) {
    const double value = ys[index];
    if (!std::isfinite(value)) return;
    if (minIndex == kNone || value < ys[minIndex]) minIndex = index;
    if (maxIndex == kNone || value > ys[maxIndex]) maxIndex = index;
}

void DecimatedSeries::Extremes::merge(const Extremes& other, const std::vector<double>& ys) {
    if (other.minIndex == kNone) return;
    if (minIndex == kNone || ys[other.minIndex] < ys[minIndex]) minIndex = other.minIndex;
    if (maxIndex == kNone || ys[other.maxIndex] > ys[maxIndex]) maxIndex = other.maxIndex;
}

void DecimatedSeries::append(double x, double y) {
    xs_.push_back(x);
    ys_.push_back(y);
    if (std::isfinite(y)) {
        ++finiteCount_;
        minY_ = std::min(minY_, y);
        maxY_ = std::max(maxY_, y);
        if (y > 0.0) minPositiveY_ = std::min(minPositiveY_, y);
    }
    addToBlocks(xs_.size() - 1);
}

void DecimatedSeries::clear() {
    *this = DecimatedSeries();
}

void DecimatedSeries::addToBlocks(std::size_t index) {
    const std::size_t block = index / pointsPerBlock_;
    if (block == blocks_.size()) blocks_.emplace_back();
    Extremes e{blocks_[block].minIndex, blocks_[block].maxIndex};
    e.take(index, ys_);
    blocks_[block] = {e.minIndex, e.maxIndex};
    if (blocks_.size() > kMaxBlocks) mergeBlockPairs();
}

void DecimatedSeries::mergeBlockPairs() {
    std::vector<Block> merged((blocks_.size() + 1) / 2);
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
        Extremes e{merged[i / 2].minIndex, merged[i / 2].maxIndex};
        e.merge({blocks_[i].minIndex, blocks_[i].maxIndex}, ys_);
        merged[i / 2] = {e.minIndex, e.maxIndex};
    }
    blocks_ = std::move(merged);
    pointsPerBlock_ *= 2;
}

std::size_t DecimatedSeries::lowerIndex(double x) const {
    return static_cast<std::size_t>(std::lower_bound(xs_.begin(), xs_.end(), x) - xs_.begin());
}

std::size_t DecimatedSeries::nearestIndex(double x) const {
    if (xs_.empty()) return 0;
    const std::size_t upper = lowerIndex(x);
    if (upper == 0) return 0;
    if (upper == xs_.size()) return xs_.size() - 1;
    return (x - xs_[upper - 1] <= xs_[upper] - x) ? upper - 1 : upper;
}

DecimatedSeries::Extremes DecimatedSeries::scanRaw(std::size_t begin, std::size_t end) const {
    Extremes e;
    for (std::size_t i = begin; i < end; ++i) e.take(i, ys_);
    return e;
}

DecimatedSeries::Extremes DecimatedSeries::scanRange(std::size_t begin, std::size_t end) const {
    const std::size_t p = pointsPerBlock_;
    if (end - begin <= 4 * p) return scanRaw(begin, end);
    // Raw scan of the partial blocks at both ends, block extremes for the whole ones between.
    const std::size_t firstWhole = (begin + p - 1) / p;
    const std::size_t lastWhole = end / p;  // exclusive
    Extremes e = scanRaw(begin, firstWhole * p);
    for (std::size_t b = firstWhole; b < lastWhole; ++b)
        e.merge({blocks_[b].minIndex, blocks_[b].maxIndex}, ys_);
    e.merge(scanRaw(lastWhole * p, end), ys_);
    return e;
}

void DecimatedSeries::emitBucket(const Extremes& e, double x, std::vector<Point>& out) const {
    if (e.minIndex == kNone) {
        // Nothing finite here: a NaN point makes the graph leave a gap.
        out.push_back({x, std::numeric_limits<double>::quiet_NaN()});
        return;
    }
    // Both extremes at the bucket's middle x, in the order they occurred: one vertical
    // stroke per pixel column, so a dense band is painted without holes.
    const std::size_t first = std::min(e.minIndex, e.maxIndex);
    const std::size_t second = std::max(e.minIndex, e.maxIndex);
    out.push_back({x, ys_[first]});
    if (second != first) out.push_back({x, ys_[second]});
}

void DecimatedSeries::view(double xLow, double xHigh, int buckets, std::vector<Point>& out) const {
    out.clear();
    if (xs_.empty() || !(xHigh >= xLow)) return;
    std::size_t begin = lowerIndex(xLow);
    if (begin > 0) --begin;
    const auto pastHigh =
        static_cast<std::size_t>(std::upper_bound(xs_.begin(), xs_.end(), xHigh) - xs_.begin());
    const std::size_t end = std::min(xs_.size(), pastHigh + 1);
    if (end <= begin) return;
    const std::size_t count = end - begin;
    const std::size_t bucketCount = static_cast<std::size_t>(std::max(1, buckets));
    if (count <= 2 * bucketCount) {
        out.reserve(count);
        for (std::size_t i = begin; i < end; ++i) out.push_back({xs_[i], ys_[i]});
        return;
    }
    // Buckets are equal slices of x (one per pixel column), not of the points: a column
    // then holds exactly one bucket even where steps are missing or uneven.
    out.reserve(2 * bucketCount);
    const double width = (xHigh - xLow) / static_cast<double>(bucketCount);
    std::size_t from = begin;
    for (std::size_t b = 0; b < bucketCount && from < end; ++b) {
        const bool last = b + 1 == bucketCount;
        const double upper = xLow + width * static_cast<double>(b + 1);
        // The first and last buckets also take the neighbours just outside the range.
        const std::size_t to = last ? end : std::clamp(lowerIndex(upper), from, end);
        if (to > from)
            emitBucket(scanRange(from, to), xLow + width * (static_cast<double>(b) + 0.5), out);
        from = to;
    }
}

}  // namespace ampscope::ui
