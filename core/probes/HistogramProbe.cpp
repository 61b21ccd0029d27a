#include "probes/HistogramProbe.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "probes/ProbeInput.h"

namespace ampscope {
namespace {

namespace slot = histogram_slot;
using probe_input::bitsOf;
using probe_input::kInfBits;
using probe_input::kMagnitudeMask;
using probe_rules::kLowestBiased;

struct Counts {
    std::array<int64_t, slot::kCount> c{};
};

template <class T>
Counts countChunk(const T* data, int64_t begin, int64_t end) {
    // The slots of a run of values first (vectorised, no branch on the value), then the counts.
    constexpr int64_t kRun = 256;
    alignas(64) uint32_t slots[kRun];
    slot::SlotCounts counts;
    for (int64_t first = begin; first < end; first += kRun) {
        const int64_t n = std::min(kRun, end - first);
        for (int64_t i = 0; i < n; ++i) slots[i] = slot::ofBits(bitsOf(static_cast<float>(data[first + i])));
        counts.add(slots, n);
    }
    Counts out;
    for (int64_t k = 0; k < slot::kCount; ++k) out.c[k] = counts.count(static_cast<size_t>(k));
    return out;
}

torch::Tensor histogramSlotsOnCpu(const torch::Tensor& values) {
    const torch::Tensor input = probe_input::prepare(values, "histogram probe");
    Counts total;
    probe_input::visit(input, [&](const auto* data, int64_t n) {
        total = at::parallel_reduce(
            int64_t{0}, n, probe_input::kGrain, Counts{},
            [&](int64_t begin, int64_t end, Counts) { return countChunk(data, begin, end); },
            [](Counts a, const Counts& b) {
                for (int64_t k = 0; k < slot::kCount; ++k) a.c[k] += b.c[k];
                return a;
            });
    });
    auto out = torch::empty({slot::kCount}, torch::kDouble);
    auto* o = out.data_ptr<double>();
    for (int64_t k = 0; k < slot::kCount; ++k) o[k] = static_cast<double>(total.c[k]);
    return out;
}

}  // namespace

namespace probe_detail {

torch::Tensor histogramSlotsWithTorchOps(const torch::Tensor& values) {
    const torch::Tensor x =
        probe_input::prepare(values, "histogram probe").to(torch::kFloat).reshape({-1});
    const auto bits = x.view(torch::kInt32);
    const auto magnitude = bits.bitwise_and(static_cast<int64_t>(kMagnitudeMask));
    // Bin by biased exponent; -1 marks "below", kExponentBins "above" until renamed.
    auto s = magnitude.__rshift__(23).to(torch::kLong).sub_(static_cast<int64_t>(kLowestBiased));
    s.clamp_(-1, kExponentBins);
    s.masked_fill_(s.eq(kExponentBins), slot::kAbove);
    s.masked_fill_(s.eq(-1), slot::kBelow);
    s.masked_fill_(magnitude.eq(0), slot::kZero);
    s.masked_fill_(magnitude.gt(static_cast<int64_t>(kInfBits)), slot::kNan);
    s.masked_fill_(bits.eq(static_cast<int64_t>(static_cast<int32_t>(kInfBits))), slot::kPosInf);
    s.masked_fill_(bits.eq(static_cast<int64_t>(static_cast<int32_t>(probe_input::kNegInfBits))),
                   slot::kNegInf);
    // index_add_ accumulates on the device; bincount would read its maximum to the host first.
    auto counts = torch::zeros({slot::kCount}, x.options().dtype(torch::kDouble));
    return counts.index_add_(0, s, torch::ones({s.numel()}, counts.options()));
}

}  // namespace probe_detail

torch::Tensor histogramSlots(const torch::Tensor& values) {
    if (values.defined() && values.device().is_cpu()) return histogramSlotsOnCpu(values);
    return probe_detail::histogramSlotsWithTorchOps(values);
}

torch::Tensor histogramSlots(const std::vector<torch::Tensor>& values) {
    torch::Tensor sum;
    for (const auto& t : values) {
        if (!t.defined()) continue;
        if (sum.defined() && t.device() != sum.device())
            throw std::invalid_argument("histogram probe: tensors on different devices");
        auto slots = histogramSlots(t);
        sum = sum.defined() ? sum.add_(slots) : slots;
    }
    return sum.defined() ? sum : torch::zeros({slot::kCount}, torch::kDouble);
}

ExponentHistogram histogramFromSlots(const double* slots) {
    const auto count = [&](int64_t k) { return static_cast<int64_t>(slots[k]); };
    ExponentHistogram h;
    for (int64_t k = 0; k < kExponentBins; ++k) h.counts[static_cast<size_t>(k)] = count(k);
    h.below = count(slot::kBelow);
    h.above = count(slot::kAbove);
    h.zero = count(slot::kZero);
    h.nan = count(slot::kNan);
    h.posInf = count(slot::kPosInf);
    h.negInf = count(slot::kNegInf);
    return h;
}

ExponentHistogram computeExponentHistogram(const torch::Tensor& values) {
    const auto host = histogramSlots(values).to(torch::kCPU).contiguous();
    return histogramFromSlots(host.data_ptr<double>());
}

ExponentHistogram computeExponentHistogram(const std::vector<torch::Tensor>& values) {
    const auto host = histogramSlots(values).to(torch::kCPU).contiguous();
    return histogramFromSlots(host.data_ptr<double>());
}

}  // namespace ampscope
