#include "stats/SeedBand.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "stats/StudentT.h"

namespace ampscope::stats {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

const char* const kSeedBandRule =
    "mean +- t(0.975, N-1) * s * sqrt(1 + 1/N): the 95% prediction interval of one more seed";

SampleSummary summarize(const std::vector<double>& values) {
    // Two passes: the mean first, then squares of deviations from it (one pass of sums of
    // squares loses the spread of losses that agree to many digits).
    SampleSummary s;
    double sum = 0.0;
    for (const double v : values)
        if (std::isfinite(v)) {
            sum += v;
            ++s.count;
        }
    if (s.count == 0) return {0, kNaN, kNaN};
    s.mean = sum / s.count;
    if (s.count < 2) {
        s.sd = kNaN;
        return s;
    }
    double squares = 0.0;
    for (const double v : values)
        if (std::isfinite(v)) squares += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(squares / (s.count - 1));
    return s;
}

BandInterval bandOf(const SampleSummary& seeds, double alpha) {
    BandInterval band{seeds.count, seeds.mean, kNaN, kNaN};
    if (seeds.count < kMinimumSeeds) return band;
    const double n = seeds.count;
    const double half = studentTQuantile(1.0 - alpha / 2.0, n - 1.0) * seeds.sd * std::sqrt(1.0 + 1.0 / n);
    band.low = seeds.mean - half;
    band.high = seeds.mean + half;
    return band;
}

std::vector<StepBand> seedBandSeries(const std::vector<std::vector<StepValue>>& seedRuns, double alpha) {
    std::map<int64_t, std::vector<double>> byStep;
    for (const auto& run : seedRuns)
        for (const StepValue& point : run)
            if (std::isfinite(point.value)) byStep[point.step].push_back(point.value);
    // The quantile depends on N alone: one bisection per seed count, not per step.
    std::unordered_map<int, double> quantiles;
    std::vector<StepBand> series;
    for (const auto& [step, values] : byStep) {
        const SampleSummary s = summarize(values);
        if (s.count < kMinimumSeeds) continue;
        auto [it, added] = quantiles.try_emplace(s.count, 0.0);
        if (added) it->second = studentTQuantile(1.0 - alpha / 2.0, s.count - 1.0);
        const double half = it->second * s.sd * std::sqrt(1.0 + 1.0 / s.count);
        series.push_back({step, {s.count, s.mean, s.mean - half, s.mean + half}});
    }
    return series;
}

const char* labelName(Label label) {
    switch (label) {
        case Label::Inside: return "inside";
        case Label::Outside: return "outside";
        case Label::NoBand: break;
    }
    return "no band";
}

GapLabel labelRunAgainstBand(double value, const SampleSummary& seeds, double alpha) {
    GapLabel result;
    if (seeds.count < kMinimumSeeds || !std::isfinite(value)) return result;
    const double n = seeds.count;
    const double scale = seeds.sd * std::sqrt(1.0 + 1.0 / n);
    result.df = n - 1.0;
    if (scale > 0.0) {
        result.t = (value - seeds.mean) / scale;
        result.p = std::min(1.0, 2.0 * studentTUpperTail(std::fabs(result.t), result.df));
    } else {
        // Seeds that all agree: any other value is outside them, the same value is not.
        result.t = value == seeds.mean ? 0.0 : std::copysign(INFINITY, value - seeds.mean);
        result.p = value == seeds.mean ? 1.0 : 0.0;
    }
    result.label = result.p < alpha ? Label::Outside : Label::Inside;
    return result;
}

double welchDegreesOfFreedom(const SampleSummary& a, const SampleSummary& b) {
    if (a.count < kMinimumSeeds || b.count < kMinimumSeeds) return kNaN;
    const double va = a.sd * a.sd / a.count;
    const double vb = b.sd * b.sd / b.count;
    const double denominator = va * va / (a.count - 1) + vb * vb / (b.count - 1);
    if (!(denominator > 0.0)) return kNaN;
    return (va + vb) * (va + vb) / denominator;
}

GapLabel labelSeedsAgainstBand(const SampleSummary& compared, const SampleSummary& seeds, Alternative alternative,
                               double alpha) {
    GapLabel result;
    if (compared.count < kMinimumSeeds || seeds.count < kMinimumSeeds) return result;
    const double standardError = std::sqrt(compared.sd * compared.sd / compared.count + seeds.sd * seeds.sd / seeds.count);
    const double difference = compared.mean - seeds.mean;
    // Positive t points the way the alternative says, so p is always the upper tail.
    const double signedDifference = alternative == Alternative::Greater ? difference : -difference;
    if (standardError > 0.0) {
        result.df = welchDegreesOfFreedom(compared, seeds);
        result.t = difference / standardError;
        result.p = studentTUpperTail(signedDifference / standardError, result.df);
    } else {
        // No spread on either side: the means differ in the named direction or they do not.
        result.df = compared.count + seeds.count - 2.0;
        result.t = difference == 0.0 ? 0.0 : std::copysign(INFINITY, difference);
        result.p = signedDifference > 0.0 ? 0.0 : signedDifference == 0.0 ? 0.5 : 1.0;
    }
    result.label = result.p < alpha ? Label::Outside : Label::Inside;
    return result;
}

std::vector<StepRange> stepsOutsideBand(const std::vector<StepBand>& band, const std::vector<StepValue>& run) {
    std::unordered_map<int64_t, double> values;
    for (const StepValue& point : run)
        if (std::isfinite(point.value)) values[point.step] = point.value;
    std::vector<StepRange> ranges;
    bool open = false;
    for (const StepBand& point : band) {
        const auto it = values.find(point.step);
        const bool known = it != values.end() && std::isfinite(point.band.low);
        const bool above = known && it->second > point.band.high;
        const bool below = known && it->second < point.band.low;
        if (!above && !below) {
            open = false;
            continue;
        }
        if (open && ranges.back().above == above) {
            ranges.back().last = point.step;
        } else {
            ranges.push_back({point.step, point.step, above});
            open = true;
        }
    }
    return ranges;
}

}  // namespace ampscope::stats
