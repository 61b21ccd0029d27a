#include "probes/TensorStatsProbe.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "probes/ProbeInput.h"

namespace ampscope {
namespace {

namespace slot = stats_slot;
using probe_input::bitsOf;
using probe_input::kInfBits;
using probe_input::kMagnitudeMask;
using probe_input::kNegInfBits;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Partial {
    float min = kInf;
    float max = -kInf;
    double sum = 0.0;
    int64_t nan = 0, posInf = 0, negInf = 0;
};

Partial combine(Partial a, const Partial& b) {
    a.min = std::min(a.min, b.min);
    a.max = std::max(a.max, b.max);
    a.sum += b.sum;
    a.nan += b.nan;
    a.posInf += b.posInf;
    a.negInf += b.negInf;
    return a;
}

// One pass. Work goes in lanes (independent accumulators) so the compiler can
// vectorise without reassociating a single float sum; the float lane sums are
// folded into a double every block, which keeps the mean accurate.
template <class T, bool kWithRange>
Partial scanChunk(const T* data, int64_t begin, int64_t end) {
    constexpr int kLanes = 16;
    constexpr int64_t kBlock = 4096;  // elements per fold into the double sum
    Partial out;
    for (int64_t blockBegin = begin; blockBegin < end; blockBegin += kBlock) {
        const int64_t blockEnd = std::min(end, blockBegin + kBlock);
        float lo[kLanes], hi[kLanes], sum[kLanes];
        uint32_t nan[kLanes], pos[kLanes], neg[kLanes];
        for (int j = 0; j < kLanes; ++j) {
            lo[j] = kInf;
            hi[j] = -kInf;
            sum[j] = 0.0f;
            nan[j] = pos[j] = neg[j] = 0;
        }
        const auto visit = [&](int j, float v) {
            const uint32_t bits = bitsOf(v);
            const uint32_t magnitude = bits & kMagnitudeMask;
            nan[j] += magnitude > kInfBits;
            pos[j] += bits == kInfBits;
            neg[j] += bits == kNegInfBits;
            if constexpr (kWithRange) {
                const bool finite = magnitude < kInfBits;
                lo[j] = std::min(lo[j], finite ? v : kInf);
                hi[j] = std::max(hi[j], finite ? v : -kInf);
                sum[j] += finite ? v : 0.0f;
            }
        };
        int64_t i = blockBegin;
        for (; i + kLanes <= blockEnd; i += kLanes)
            for (int j = 0; j < kLanes; ++j) visit(j, static_cast<float>(data[i + j]));
        for (int j = 0; i < blockEnd; ++i, ++j) visit(j, static_cast<float>(data[i]));
        double blockSum = 0.0;
        for (int j = 0; j < kLanes; ++j) {
            out.min = std::min(out.min, lo[j]);
            out.max = std::max(out.max, hi[j]);
            blockSum += sum[j];
            out.nan += nan[j];
            out.posInf += pos[j];
            out.negInf += neg[j];
        }
        out.sum += blockSum;
    }
    return out;
}

torch::Tensor slotsTensor(double min, double max, double sum, int64_t nan, int64_t posInf,
                          int64_t negInf, int64_t numel) {
    auto out = torch::empty({slot::kCount}, torch::kDouble);
    double* o = out.data_ptr<double>();
    o[slot::kMin] = min;
    o[slot::kMax] = max;
    o[slot::kSum] = sum;
    o[slot::kNan] = static_cast<double>(nan);
    o[slot::kPosInf] = static_cast<double>(posInf);
    o[slot::kNegInf] = static_cast<double>(negInf);
    o[slot::kNumel] = static_cast<double>(numel);
    return out;
}

template <bool kWithRange>
torch::Tensor slotsOnCpu(const torch::Tensor& values) {
    const torch::Tensor input = probe_input::prepare(values, "tensor stats");
    const int64_t n = input.numel();
    if (n == 0) return slotsTensor(kNaN, kNaN, kWithRange ? 0.0 : kNaN, 0, 0, 0, 0);
    // Fast paths, ATen's vectorised reductions; on the CPU reading their result
    // is a memory load, not a device synchronisation.
    if constexpr (kWithRange) {
        // aminmax propagates NaN and shows +-inf in the min/max: a finite result
        // proves every element finite, and is the finite range. (No CPU float16
        // aminmax in LibTorch 1.13: half goes the long way.)
        if (input.scalar_type() != torch::kHalf) {
            const auto [lo, hi] = torch::aminmax(input);
            const double min = lo.item<double>();
            const double max = hi.item<double>();
            if (std::isfinite(min) && std::isfinite(max))
                return slotsTensor(min, max, input.sum(torch::kFloat).item<double>(), 0, 0, 0, n);
        }
    } else {
        // Any NaN/Inf makes the sum non-finite; a finite sum proves all finite.
        // (A sum that overflows on finite values only costs the exact pass below.)
        if (std::isfinite(input.sum(torch::kFloat).item<double>()))
            return slotsTensor(kNaN, kNaN, kNaN, 0, 0, 0, n);
    }
    // Some element is not finite (or half input): one exact pass counts them
    // and keeps the range and sum of the finite rest.
    Partial total;
    probe_input::visit(input, [&](const auto* data, int64_t count) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(data)>>;
        total = at::parallel_reduce(
            int64_t{0}, count, probe_input::kGrain, Partial{},
            [&](int64_t begin, int64_t end, Partial) {
                return scanChunk<T, kWithRange>(data, begin, end);
            },
            combine);
    });
    const bool anyFinite = n - total.nan - total.posInf - total.negInf > 0;
    return slotsTensor(kWithRange && anyFinite ? total.min : kNaN,
                       kWithRange && anyFinite ? total.max : kNaN, kWithRange ? total.sum : kNaN,
                       total.nan, total.posInf, total.negInf, n);
}

torch::Tensor countsWithTorchOps(const torch::Tensor& x) {
    const auto count = [](const torch::Tensor& mask) { return mask.sum(torch::kDouble); };
    return torch::stack({count(torch::isnan(x)), count(x.eq(kInf)), count(x.eq(-kInf))});
}

}  // namespace

namespace probe_detail {

torch::Tensor tensorStatsSlotsWithTorchOps(const torch::Tensor& values) {
    const torch::Tensor x =
        probe_input::prepare(values, "tensor stats").to(torch::kFloat).reshape({-1});
    const auto options = x.options().dtype(torch::kDouble);
    const auto counts = countsWithTorchOps(x);
    const auto numel = torch::full({1}, static_cast<double>(x.numel()), options);
    if (x.numel() == 0) return torch::cat({torch::full({3}, kNaN, options), counts, numel});
    const auto finite = torch::isfinite(x);
    // Fill values that cannot win: +inf for the min, -inf for the max. With no
    // finite element the result is +-inf, turned into NaN below.
    auto lo = torch::where(finite, x, torch::full({}, kInf, x.options())).min().to(torch::kDouble);
    auto hi = torch::where(finite, x, torch::full({}, -kInf, x.options())).max().to(torch::kDouble);
    const auto none = finite.any().logical_not();
    lo = torch::where(none, torch::full({}, kNaN, options), lo);
    hi = torch::where(none, torch::full({}, kNaN, options), hi);
    const auto sum = torch::where(finite, x, torch::zeros({}, x.options())).sum(torch::kDouble);
    return torch::cat({torch::stack({lo, hi, sum}), counts, numel});
}

torch::Tensor nonFiniteCountSlotsWithTorchOps(const torch::Tensor& values) {
    const torch::Tensor x =
        probe_input::prepare(values, "tensor stats").to(torch::kFloat).reshape({-1});
    const auto options = x.options().dtype(torch::kDouble);
    return torch::cat({torch::full({3}, kNaN, options), countsWithTorchOps(x),
                       torch::full({1}, static_cast<double>(x.numel()), options)});
}

}  // namespace probe_detail

torch::Tensor tensorStatsSlots(const torch::Tensor& values) {
    if (values.defined() && values.device().is_cpu()) return slotsOnCpu<true>(values);
    return probe_detail::tensorStatsSlotsWithTorchOps(values);
}

torch::Tensor nonFiniteCountSlots(const torch::Tensor& values) {
    if (values.defined() && values.device().is_cpu()) return slotsOnCpu<false>(values);
    return probe_detail::nonFiniteCountSlotsWithTorchOps(values);
}

TensorStats tensorStatsFromSlots(const double* slots) {
    TensorStats s;
    s.nan = static_cast<int64_t>(slots[slot::kNan]);
    s.posInf = static_cast<int64_t>(slots[slot::kPosInf]);
    s.negInf = static_cast<int64_t>(slots[slot::kNegInf]);
    s.numel = static_cast<int64_t>(slots[slot::kNumel]);
    const int64_t finite = s.finiteCount();
    s.min = finite > 0 ? slots[slot::kMin] : kNaN;
    s.max = finite > 0 ? slots[slot::kMax] : kNaN;
    s.mean = finite > 0 ? slots[slot::kSum] / static_cast<double>(finite) : kNaN;
    s.absMax = std::isnan(s.min) || std::isnan(s.max)
                   ? kNaN
                   : std::max(std::fabs(s.min), std::fabs(s.max));
    return s;
}

TensorStats computeTensorStats(const torch::Tensor& values) {
    const auto host = tensorStatsSlots(values).to(torch::kCPU).contiguous();
    return tensorStatsFromSlots(host.data_ptr<double>());
}

}  // namespace ampscope
