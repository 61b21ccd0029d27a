#include "probes/Fp16Classifier.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/ProbeElementRules.h"
#include "probes/ProbeInput.h"

namespace ampscope {
namespace {

namespace slot = fp16_class_slot;
using probe_input::bitsOf;
using probe_input::kInfBits;
using probe_input::kMagnitudeMask;

// The plan of a multiplier (limits moved, or a product formed) is shared with the
// fused CUDA kernel, so that both classify by the same limits.
using Plan = probe_rules::Fp16Plan;

Plan planFor(double multiplier) { return probe_rules::planFp16(multiplier); }

// Cumulative counters from which the classes follow by differences; every
// test is a compare of fp32 bit patterns (for non-NaN magnitudes the integer
// order is the float order), which the compiler can vectorise.
struct Tally {
    int64_t zero = 0, nan = 0, inf = 0;                           // of x itself
    int64_t atMostFlush = 0, belowNormal = 0, belowOverflow = 0;  // of |y| (NaN never counts)
};

template <class T>
Tally tallyChunk(const T* data, int64_t begin, int64_t end, const Plan& plan) {
    const uint32_t flush = bitsOf(plan.flushBound);
    const uint32_t normal = bitsOf(plan.normalBound);
    const uint32_t overflow = bitsOf(plan.overflowBound);
    Tally t;
    // 32-bit counters inside blocks keep the loop vectorisable; fold per block.
    constexpr int64_t kBlock = int64_t{1} << 20;
    for (int64_t blockBegin = begin; blockBegin < end; blockBegin += kBlock) {
        const int64_t blockEnd = std::min(end, blockBegin + kBlock);
        uint32_t zero = 0, nan = 0, inf = 0, le = 0, ltNormal = 0, ltOverflow = 0;
        for (int64_t i = blockBegin; i < blockEnd; ++i) {
            const float x = static_cast<float>(data[i]);
            const uint32_t mx = bitsOf(x) & kMagnitudeMask;
            const float y = plan.multiply ? x * plan.factor : x;
            const uint32_t my = bitsOf(y) & kMagnitudeMask;
            zero += mx == 0;
            nan += mx > kInfBits;
            inf += mx == kInfBits;
            le += my <= flush;
            ltNormal += my < normal;
            ltOverflow += my < overflow;
        }
        t.zero += zero;
        t.nan += nan;
        t.inf += inf;
        t.atMostFlush += le;
        t.belowNormal += ltNormal;
        t.belowOverflow += ltOverflow;
    }
    return t;
}

void writeClasses(const Tally& t, int64_t n, double* row) {
    row[slot::kZero] = static_cast<double>(t.zero);
    row[slot::kFlushed] = static_cast<double>(t.atMostFlush - t.zero);
    row[slot::kSubnormal] = static_cast<double>(t.belowNormal - t.atMostFlush);
    row[slot::kNormal] = static_cast<double>(t.belowOverflow - t.belowNormal);
    row[slot::kOverflow] = static_cast<double>(n - t.belowOverflow - t.nan - t.inf);
    row[slot::kNan] = static_cast<double>(t.nan);
    row[slot::kInf] = static_cast<double>(t.inf);
}

torch::Tensor fp16ClassSlotsOnCpu(const torch::Tensor& values,
                                  const std::vector<double>& multipliers) {
    const torch::Tensor input = probe_input::prepare(values, "fp16 classification");
    auto out =
        torch::empty({static_cast<int64_t>(multipliers.size()), slot::kCount}, torch::kDouble);
    double* rows = out.data_ptr<double>();
    for (size_t m = 0; m < multipliers.size(); ++m) {
        const Plan plan = planFor(multipliers[m]);
        Tally total;
        probe_input::visit(input, [&](const auto* data, int64_t n) {
            total = at::parallel_reduce(
                int64_t{0}, n, probe_input::kGrain, Tally{},
                [&](int64_t begin, int64_t end, Tally) {
                    return tallyChunk(data, begin, end, plan);
                },
                [](Tally a, const Tally& b) {
                    a.zero += b.zero;
                    a.nan += b.nan;
                    a.inf += b.inf;
                    a.atMostFlush += b.atMostFlush;
                    a.belowNormal += b.belowNormal;
                    a.belowOverflow += b.belowOverflow;
                    return a;
                });
        });
        writeClasses(total, input.numel(), rows + m * slot::kCount);
    }
    return out;
}

}  // namespace

namespace probe_detail {

torch::Tensor fp16ClassSlotsWithTorchOps(const torch::Tensor& values,
                                         const std::vector<double>& multipliers) {
    const torch::Tensor x = probe_input::prepare(values, "fp16 classification").to(torch::kFloat);
    const auto count = [](const torch::Tensor& mask) { return mask.sum(torch::kDouble); };
    const auto absX = x.abs();
    const auto zero = count(x.eq(0));
    const auto nan = count(torch::isnan(x));
    const auto inf = count(torch::isinf(x));
    const auto n = static_cast<double>(x.numel());
    std::vector<torch::Tensor> rows;
    for (double multiplier : multipliers) {
        const Plan plan = planFor(multiplier);
        const auto absY = plan.multiply ? (x * plan.factor).abs() : absX;
        // The bounds are exact floats, so comparing fp32 with them is exact.
        const auto atMostFlush = count(absY.le(plan.flushBound));
        const auto belowNormal = count(absY.lt(plan.normalBound));
        const auto belowOverflow = count(absY.lt(plan.overflowBound));
        rows.push_back(
            torch::stack({zero, atMostFlush - zero, belowNormal - atMostFlush,
                          belowOverflow - belowNormal, n - belowOverflow - nan - inf, nan, inf}));
    }
    if (rows.empty()) return torch::zeros({0, slot::kCount}, x.options().dtype(torch::kDouble));
    return torch::stack(rows);
}

}  // namespace probe_detail

torch::Tensor fp16ClassSlots(const torch::Tensor& values, const std::vector<double>& multipliers) {
    if (values.defined() && values.device().is_cpu())
        return fp16ClassSlotsOnCpu(values, multipliers);
    return probe_detail::fp16ClassSlotsWithTorchOps(values, multipliers);
}

torch::Tensor fp16ClassSlots(const std::vector<torch::Tensor>& values,
                             const std::vector<double>& multipliers) {
    torch::Tensor sum;
    for (const auto& t : values) {
        if (!t.defined()) continue;
        if (sum.defined() && t.device() != sum.device())
            throw std::invalid_argument("fp16 classification: tensors on different devices");
        auto slots = fp16ClassSlots(t, multipliers);
        sum = sum.defined() ? sum.add_(slots) : slots;
    }
    if (sum.defined()) return sum;
    for (double m : multipliers) planFor(m);  // same argument checks as with tensors
    return torch::zeros({static_cast<int64_t>(multipliers.size()), slot::kCount}, torch::kDouble);
}

Fp16ClassCounts fp16ClassesFromSlots(const double* slots) {
    const auto count = [&](int64_t k) { return static_cast<int64_t>(slots[k]); };
    Fp16ClassCounts c;
    c.zero = count(slot::kZero);
    c.flushed = count(slot::kFlushed);
    c.subnormal = count(slot::kSubnormal);
    c.normal = count(slot::kNormal);
    c.overflow = count(slot::kOverflow);
    c.nan = count(slot::kNan);
    c.inf = count(slot::kInf);
    c.exact = true;
    return c;
}

namespace {

std::vector<Fp16ClassCounts> readRows(const torch::Tensor& slots) {
    const auto host = slots.to(torch::kCPU).contiguous();
    std::vector<Fp16ClassCounts> out;
    for (int64_t r = 0; r < host.size(0); ++r)
        out.push_back(fp16ClassesFromSlots(host.data_ptr<double>() + r * slot::kCount));
    return out;
}

}  // namespace

Fp16ClassCounts classifyForFp16(const torch::Tensor& values, double multiplier) {
    return readRows(fp16ClassSlots(values, std::vector<double>{multiplier})).front();
}

std::vector<Fp16ClassCounts> classifyForFp16(const torch::Tensor& values,
                                             const std::vector<double>& multipliers) {
    return readRows(fp16ClassSlots(values, multipliers));
}

std::vector<Fp16ClassCounts> classifyForFp16(const std::vector<torch::Tensor>& values,
                                             const std::vector<double>& multipliers) {
    return readRows(fp16ClassSlots(values, multipliers));
}

}  // namespace ampscope
