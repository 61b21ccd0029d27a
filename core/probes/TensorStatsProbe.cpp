#include "probes/TensorStatsProbe.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/CpuClones.h"
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
// folded into a double every block, which keeps the mean accurate. Always
// inlined into the per-type entry points below, which are compiled once per
// instruction set.
template <class T, bool kWithRange>
[[gnu::always_inline]] inline Partial scanChunk(const T* data, int64_t begin, int64_t end) {
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
        const auto visit = [&](int j, float v) __attribute__((always_inline)) {
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

// The scan is the per-step cost of the non-finite locator on every activation
// and gradient, so it is cloned per instruction set (common/CpuClones.h).

#define AMPSCOPE_SCAN_ENTRY(NAME, T, RANGE)                                 \
    AMPSCOPE_CPU_CLONES Partial NAME(const T* data, int64_t begin, int64_t end) { \
        return scanChunk<T, RANGE>(data, begin, end);                        \
    }
AMPSCOPE_SCAN_ENTRY(scanFloatStats, float, true)
AMPSCOPE_SCAN_ENTRY(scanFloatCounts, float, false)
AMPSCOPE_SCAN_ENTRY(scanHalfStats, c10::Half, true)
AMPSCOPE_SCAN_ENTRY(scanHalfCounts, c10::Half, false)
AMPSCOPE_SCAN_ENTRY(scanBFloat16Stats, c10::BFloat16, true)
AMPSCOPE_SCAN_ENTRY(scanBFloat16Counts, c10::BFloat16, false)
#undef AMPSCOPE_SCAN_ENTRY

template <bool kWithRange>
Partial scan(const float* d, int64_t b, int64_t e) {
    return kWithRange ? scanFloatStats(d, b, e) : scanFloatCounts(d, b, e);
}
template <bool kWithRange>
Partial scan(const c10::Half* d, int64_t b, int64_t e) {
    return kWithRange ? scanHalfStats(d, b, e) : scanHalfCounts(d, b, e);
}
template <bool kWithRange>
Partial scan(const c10::BFloat16* d, int64_t b, int64_t e) {
    return kWithRange ? scanBFloat16Stats(d, b, e) : scanBFloat16Counts(d, b, e);
}

void writeSlots(double* o, double min, double max, double sum, int64_t nan, int64_t posInf,
                int64_t negInf, int64_t numel) {
    o[slot::kMin] = min;
    o[slot::kMax] = max;
    o[slot::kSum] = sum;
    o[slot::kNan] = static_cast<double>(nan);
    o[slot::kPosInf] = static_cast<double>(posInf);
    o[slot::kNegInf] = static_cast<double>(negInf);
    o[slot::kNumel] = static_cast<double>(numel);
}

// Below this many elements one thread scans: handing a chunk to another thread
// costs more than the scan.
constexpr int64_t kSerialBelow = 4 * probe_input::kGrain;

// One exact pass over a CPU tensor, straight into host slots: no tensor is
// created and no op dispatched, which matters for the many small tensors the
// locator checks every step.
template <bool kWithRange>
void scanOnCpu(const torch::Tensor& values, double* slots) {
    // A contiguous tensor of a scanned type is read in place (no detach, no copy).
    const auto type = values.defined() ? values.scalar_type() : torch::kFloat;
    const bool direct = values.defined() && values.is_contiguous() &&
                        (type == torch::kFloat || type == torch::kHalf || type == torch::kBFloat16);
    const torch::Tensor input = direct ? values : probe_input::prepare(values, "tensor stats");
    const int64_t n = input.numel();
    if (n == 0) {
        writeSlots(slots, kNaN, kNaN, kWithRange ? 0.0 : kNaN, 0, 0, 0, 0);
        return;
    }
    // Large tensors: ATen's vectorised reductions first (measured: the own scan
    // below costs 0.58x of the step on simple_cnn when it reads every activation
    // and gradient, ATen's reductions nothing measurable). Their results are read
    // at once: on the CPU that is a memory load, not a device synchronisation.
    if (n >= kSerialBelow) {
        if constexpr (kWithRange) {
            // aminmax propagates NaN and shows +-inf in the min/max: a finite result
            // proves every element finite, and is the finite range. (No CPU float16
            // aminmax in LibTorch 1.13: half goes the exact way.)
            if (input.scalar_type() != torch::kHalf) {
                const auto [lo, hi] = torch::aminmax(input);
                const double min = lo.item<double>();
                const double max = hi.item<double>();
                if (std::isfinite(min) && std::isfinite(max)) {
                    writeSlots(slots, min, max, input.sum(torch::kFloat).item<double>(), 0, 0, 0, n);
                    return;
                }
            }
        } else {
            // Any NaN/Inf makes the sum non-finite; a finite sum proves all finite.
            // (A sum that overflows on finite values only costs the exact pass.)
            if (std::isfinite(input.sum(torch::kFloat).item<double>())) {
                writeSlots(slots, kNaN, kNaN, kNaN, 0, 0, 0, n);
                return;
            }
        }
    }
    // Small tensors (where dispatching ops costs more than reading them), and a
    // large one with a NaN/Inf or in half: one exact pass counts every kind.
    Partial total;
    probe_input::visit(input, [&](const auto* data, int64_t count) {
        if (count < kSerialBelow) {
            total = scan<kWithRange>(data, 0, count);
            return;
        }
        total = at::parallel_reduce(
            int64_t{0}, count, probe_input::kGrain, Partial{},
            [&](int64_t begin, int64_t end, Partial) { return scan<kWithRange>(data, begin, end); },
            combine);
    });
    const bool anyFinite = n - total.nan - total.posInf - total.negInf > 0;
    writeSlots(slots, kWithRange && anyFinite ? total.min : kNaN,
               kWithRange && anyFinite ? total.max : kNaN, kWithRange ? total.sum : kNaN, total.nan,
               total.posInf, total.negInf, n);
}

template <bool kWithRange>
torch::Tensor slotsOnCpu(const torch::Tensor& values) {
    auto out = torch::empty({slot::kCount}, torch::kDouble);
    scanOnCpu<kWithRange>(values, out.data_ptr<double>());
    return out;
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

void tensorStatsSlotsOnCpu(const torch::Tensor& values, bool withRange, double* slots) {
    if (withRange)
        scanOnCpu<true>(values, slots);
    else
        scanOnCpu<false>(values, slots);
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
