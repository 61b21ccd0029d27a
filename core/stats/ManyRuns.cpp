#include "stats/ManyRuns.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "stats/SeedGroups.h"

namespace ampscope::stats {

const char* const kManyRunsBandRule = "median per step, shaded from the 10% to the 90% quantile of the runs";

std::string jobOfDirectory(const std::string& directory) {
    std::string path = directory;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const std::size_t slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    constexpr std::string_view kPrefix = "rank-";
    if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0 ||
        name.find_first_not_of("0123456789", kPrefix.size()) != std::string::npos)
        return {};
    return slash == std::string::npos ? std::string(".") : path.substr(0, std::max<std::size_t>(slash, 1));
}

std::vector<ManyRunGroup> manyRunGroups(const std::vector<RunIdentity>& runs) {
    std::vector<ManyRunGroup> groups;
    std::map<std::string, std::vector<std::size_t>> jobs;
    std::vector<std::string> jobOrder;
    std::vector<std::size_t> others;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string job = jobOfDirectory(runs[i].directory);
        if (job.empty()) {
            others.push_back(i);
            continue;
        }
        auto [it, added] = jobs.try_emplace(job);
        if (added) jobOrder.push_back(job);
        it->second.push_back(i);
    }
    for (const std::string& job : jobOrder) {
        std::vector<std::size_t>& members = jobs[job];
        if (static_cast<int>(members.size()) >= kManyRuns)
            groups.push_back({ManyRunKind::JobRanks, std::move(members), job});
        else
            others.insert(others.end(), members.begin(), members.end());  // a small job: its runs as any
    }
    std::sort(others.begin(), others.end());
    std::vector<nlohmann::json> configs;
    configs.reserve(others.size());
    for (const std::size_t i : others) configs.push_back(runs[i].config);
    for (const std::vector<std::size_t>& seeds : seedGroups(configs)) {
        if (static_cast<int>(seeds.size()) < kManyRuns) continue;
        ManyRunGroup group{ManyRunKind::Seeds, {}, {}};
        for (const std::size_t k : seeds) group.members.push_back(others[k]);
        groups.push_back(std::move(group));
    }
    std::sort(groups.begin(), groups.end(),
              [](const ManyRunGroup& a, const ManyRunGroup& b) { return a.members.front() < b.members.front(); });
    return groups;
}

double sortedQuantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double h = q * static_cast<double>(sorted.size() - 1);
    const std::size_t below = static_cast<std::size_t>(std::floor(h));
    if (below + 1 >= sorted.size()) return sorted.back();
    return sorted[below] + (h - static_cast<double>(below)) * (sorted[below + 1] - sorted[below]);
}

namespace {

// sortedQuantile's three quantiles without a sort: the order statistics each interpolates
// between, by selection, the median's first (512 ranks a step, 10^4 steps: a sort each
// step would be most of a band's cost). The low quantile's statistics are then left of the
// median's and the high one's right of it, so each is selected within its side only.
// Reorders `values`; the quantiles must satisfy low <= 0.5 <= high.
void selectQuantiles(std::vector<double>& values, double low, double high, QuantileBandPoint& point) {
    const auto begin = values.begin();
    const std::size_t n = values.size();
    const auto split = [n](double q, std::size_t* index, double* fraction) {
        const double h = q * static_cast<double>(n - 1);
        *index = static_cast<std::size_t>(std::floor(h));
        *fraction = h - static_cast<double>(*index);
    };
    const auto at = [begin](std::size_t i) { return begin + static_cast<std::ptrdiff_t>(i); };
    std::size_t mid = 0, lo = 0, hi = 0;
    double midFraction = 0, loFraction = 0, hiFraction = 0;
    split(0.5, &mid, &midFraction);
    split(low, &lo, &loFraction);
    split(high, &hi, &hiFraction);
    std::nth_element(begin, at(mid), values.end());
    const double midValue = *at(mid);
    const double midNext = mid + 1 < n ? *std::min_element(at(mid + 1), values.end()) : midValue;
    point.median = midValue + midFraction * (midNext - midValue);
    double loValue = midValue, loNext = midNext;
    if (lo < mid) {
        std::nth_element(begin, at(lo), at(mid));
        loValue = *at(lo);
        loNext = *std::min_element(at(lo + 1), at(mid + 1));  // the median's statistic included
    }
    point.low = loValue + loFraction * (loNext - loValue);
    double hiValue = midValue, hiNext = midNext;
    if (hi > mid) {
        std::nth_element(at(mid + 1), at(hi), values.end());
        hiValue = *at(hi);
        hiNext = hi + 1 < n ? *std::min_element(at(hi + 1), values.end()) : hiValue;
    }
    point.high = hiValue + hiFraction * (hiNext - hiValue);
}

bool sameSteps(const std::vector<MemberSeries>& members) {
    if (members.empty()) return false;
    const MemberSeries& first = members.front();
    for (const MemberSeries& m : members)
        if (m.size != first.size ||
            (m.steps != first.steps && !std::equal(m.steps, m.steps + m.size, first.steps)))
            return false;
    return true;
}

}  // namespace

std::vector<QuantileBandPoint> quantileBandSeries(const std::vector<MemberSeries>& members, double lowQuantile,
                                                  double highQuantile) {
    std::vector<QuantileBandPoint> band;
    const std::size_t needed = std::max<std::size_t>(2, (members.size() + 1) / 2);
    const auto addPoint = [&](double step, std::vector<double>& values) {
        if (values.size() < needed) return;
        QuantileBandPoint point;
        point.step = static_cast<int64_t>(std::llround(step));
        point.members = static_cast<int>(values.size());
        selectQuantiles(values, lowQuantile, highQuantile, point);
        band.push_back(point);
    };
    if (sameSteps(members)) {
        // The usual case (a job's ranks all record every step): the members' values are
        // read a block of steps at a time, so each member's array is read in runs of
        // cache lines rather than one value per member per step (512 streams at once
        // defeat the prefetcher and made this walk most of a band's cost).
        constexpr std::size_t kBlock = 64;
        const std::size_t count = members.front().size, width = members.size();
        const double* steps = members.front().steps;
        std::vector<double> block(kBlock * width), values;
        values.reserve(width);
        for (std::size_t start = 0; start < count; start += kBlock) {
            const std::size_t length = std::min(kBlock, count - start);
            for (std::size_t m = 0; m < width; ++m)
                for (std::size_t k = 0; k < length; ++k) block[k * width + m] = members[m].values[start + k];
            for (std::size_t k = 0; k < length; ++k) {
                const std::size_t i = start + k;
                if (i > 0 && steps[i] == steps[i - 1]) continue;  // a thinned series' second point at a step
                values.clear();
                for (std::size_t m = 0; m < width; ++m)
                    if (const double v = block[k * width + m]; std::isfinite(v)) values.push_back(v);
                addPoint(steps[i], values);
            }
        }
        return band;
    }
    std::vector<std::size_t> cursor(members.size(), 0);
    std::vector<double> values;
    values.reserve(members.size());
    // A walk over the union of the members' steps, in order: each member's cursor stands at
    // its first step not yet passed.
    for (;;) {
        double step = std::numeric_limits<double>::infinity();
        for (std::size_t m = 0; m < members.size(); ++m)
            if (cursor[m] < members[m].size) step = std::min(step, members[m].steps[cursor[m]]);
        if (!std::isfinite(step)) break;
        values.clear();
        for (std::size_t m = 0; m < members.size(); ++m) {
            const MemberSeries& s = members[m];
            // A thinned series may keep two points at one step (a bucket's first point and
            // its extreme): the first is the member's value there.
            bool taken = false;
            while (cursor[m] < s.size && s.steps[cursor[m]] == step) {
                const double v = s.values[cursor[m]];
                if (!taken && std::isfinite(v)) values.push_back(v);
                taken = true;
                ++cursor[m];
            }
        }
        addPoint(step, values);
    }
    return band;
}

double medianOf(std::vector<double> values) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
                 values.end());
    if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
    // Selection, not a sort: a job's 512 ranks of 10^4 step times each.
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2 == 1) return upper;
    const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
    return lower + 0.5 * (upper - lower);
}

std::vector<std::size_t> stragglers(const std::vector<double>& memberMedianStepTimes, double factor) {
    std::vector<std::size_t> slow;
    std::vector<double> known;
    for (const double t : memberMedianStepTimes)
        if (std::isfinite(t)) known.push_back(t);
    if (known.size() < 2) return slow;
    const double typical = medianOf(known);
    for (std::size_t m = 0; m < memberMedianStepTimes.size(); ++m)
        if (std::isfinite(memberMedianStepTimes[m]) && memberMedianStepTimes[m] > factor * typical)
            slow.push_back(m);
    return slow;
}

std::optional<StepRange> departure(const std::vector<QuantileBandPoint>& band, const MemberSeries& member) {
    std::optional<StepRange> longest;
    std::size_t longestPoints = 0;
    const std::size_t needed =
        std::max<std::size_t>(kDepartureMinPoints, static_cast<std::size_t>(std::ceil(kDepartureShare * band.size())));
    std::size_t at = 0;  // the member's cursor
    std::size_t runPoints = 0;
    StepRange run;
    const auto close = [&] {
        if (runPoints >= needed && runPoints > longestPoints) {
            longest = run;
            longestPoints = runPoints;
        }
        runPoints = 0;
    };
    for (const QuantileBandPoint& point : band) {
        const double step = static_cast<double>(point.step);
        while (at < member.size && member.steps[at] < step) ++at;
        const bool has = at < member.size && member.steps[at] == step && std::isfinite(member.values[at]);
        const double width = point.high - point.low;
        const bool above = has && member.values[at] > point.high + width;
        const bool below = has && member.values[at] < point.low - width;
        if (!above && !below) {
            close();
            continue;
        }
        if (runPoints > 0 && run.above != above) close();
        if (runPoints == 0) run = {point.step, point.step, above};
        run.last = point.step;
        ++runPoints;
    }
    close();
    return longest;
}

}  // namespace ampscope::stats
