#include "runset/DecimatedSeries.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ampscope::ui {

void DecimatedSeries::Extremes::take(std::size_t index, const std::vector<double>& ys) {
    const double value = ys[index];
    if (!std::isfinite(value)) return;
    if (minIndex == kNone || value < ys[minIndex]) minIndex = index;
    if (maxIndex == kNone || value > ys[maxIndex]) maxIndex = index;
}

DecimatedSeries::DecimatedSeries(std::size_t bucketLimit)
    : bucketLimit_(std::max<std::size_t>(2, bucketLimit + (bucketLimit % 2))) {}

void DecimatedSeries::clear() {
    *this = DecimatedSeries(bucketLimit_);
}

std::size_t DecimatedSeries::keepRepresentatives(std::size_t begin, std::size_t end,
                                                 std::size_t to) {
    // The first point, the extremes and the first non-finite point, in their order.
    std::array<std::size_t, 4> keep{begin, kNone, kNone, kNone};
    Extremes e;
    for (std::size_t i = begin; i < end; ++i) {
        e.take(i, ys_);
        if (keep[3] == kNone && !std::isfinite(ys_[i])) keep[3] = i;
    }
    keep[1] = e.minIndex;
    keep[2] = e.maxIndex;
    std::sort(keep.begin(), keep.end());
    const auto last = std::unique(keep.begin(), keep.end());
    for (auto it = keep.begin(); it != last && *it != kNone; ++it) {
        // `to` never passes the index it copies from: writes only move points left.
        xs_[to] = xs_[*it];
        ys_[to] = ys_[*it];
        ++to;
    }
    return to;
}

void DecimatedSeries::mergeBucketPairs() {
    std::size_t to = 0;
    std::vector<std::size_t> starts;
    starts.reserve(bucketLimit_);
    for (std::size_t b = 0; b < bucketStarts_.size(); b += 2) {
        const std::size_t begin = bucketStarts_[b];
        const std::size_t end = b + 2 < bucketStarts_.size() ? bucketStarts_[b + 2] : xs_.size();
        starts.push_back(to);
        to = keepRepresentatives(begin, end, to);
    }
    xs_.resize(to);
    ys_.resize(to);
    bucketStarts_ = std::move(starts);
    pointsPerBucket_ *= 2;
}

void DecimatedSeries::append(double x, double y) {
    ++appended_;
    lastX_ = x;
    if (std::isfinite(y)) {
        ++finiteCount_;
        minY_ = std::min(minY_, y);
        maxY_ = std::max(maxY_, y);
        if (y > 0.0) minPositiveY_ = std::min(minPositiveY_, y);
    }
    if (bucketStarts_.empty() || openCount_ == pointsPerBucket_) {
        // The last bucket is full: open a new one, merging pairs first when every bucket
        // is in use (they are all full then, so pairs merge whole).
        if (bucketStarts_.size() == bucketLimit_) mergeBucketPairs();
        bucketStarts_.push_back(xs_.size());
        openCount_ = 0;
    } else if (std::isfinite(y) && openLow_ <= y && y <= openHigh_) {
        // Neither below the open bucket's smallest finite y nor above its largest (the
        // earlier of equal extremes is the one kept), nor its first non-finite: what the
        // bucket keeps is unchanged, so the point is counted and not stored. Most points of
        // a thinned series are such, and keepRepresentatives for each was the cost.
        ++openCount_;
        return;
    }
    xs_.push_back(x);
    ys_.push_back(y);
    ++openCount_;
    const std::size_t begin = bucketStarts_.back();
    if (xs_.size() - begin > 1) {
        // At most 4 kept + the new one: what is kept of the bucket so far, exactly.
        const std::size_t end = keepRepresentatives(begin, xs_.size(), begin);
        xs_.resize(end);
        ys_.resize(end);
    }
    // The open bucket's finite extremes, from what it keeps (at most 4 points); none yet:
    // an empty range, so no point takes the fast path above.
    openLow_ = std::numeric_limits<double>::infinity();
    openHigh_ = -std::numeric_limits<double>::infinity();
    for (std::size_t i = begin; i < ys_.size(); ++i)
        if (std::isfinite(ys_[i])) openLow_ = std::min(openLow_, ys_[i]), openHigh_ = std::max(openHigh_, ys_[i]);
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

double DecimatedSeries::yNear(double x) const {
    if (xs_.empty()) return std::numeric_limits<double>::quiet_NaN();
    return ys_[nearestIndex(x)];
}

void DecimatedSeries::bucketFirsts(std::vector<double>& xs, std::vector<double>& ys) const {
    // A bucket's first kept point is its first appended point: keepRepresentatives keeps
    // it first, and a merged bucket starts with its first half's first point.
    xs.resize(bucketStarts_.size());
    ys.resize(bucketStarts_.size());
    for (std::size_t b = 0; b < bucketStarts_.size(); ++b) {
        xs[b] = xs_[bucketStarts_[b]];
        ys[b] = ys_[bucketStarts_[b]];
    }
}

DecimatedSeries::Extremes DecimatedSeries::scan(std::size_t begin, std::size_t end) const {
    Extremes e;
    for (std::size_t i = begin; i < end; ++i) e.take(i, ys_);
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
            emitBucket(scan(from, to), xLow + width * (static_cast<double>(b) + 0.5), out);
        from = to;
    }
}

}  // namespace ampscope::ui
