#pragma once
// INTERNAL (includes torch). Computes ExponentHistograms of tensors on the
// tensor's own device.
//
// Results travel as "slots": a float64 tensor of histogram_slot::kCount counts on the
// input's device (exact up to 2^53 elements), so a probe step can stack the
// slots of many layers and read them with ONE host copy (ProbeReadout.h);
// computeExponentHistogram() is the one-tensor convenience that reads at once.
//
// Input: float32, float16 or bfloat16 (converted exactly to float32); float64
// is rounded to float32 first, so a double beyond the fp32 range counts as
// +-inf. Integer tensors are rejected (std::invalid_argument). The exponent
// is read from the fp32 bit pattern, never from log2(), so a value at or just
// below a power of two lands in the right bin.
// On CPU a single pass with no temporaries does the counting (temporaries of
// the input's size cost more than the counting, chiefly in page faults); on
// other devices torch ops do it without a host synchronisation.
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <vector>

#include "probes/ExponentHistogram.h"

namespace ampscope {

// Slot layout: kExponentBins exponent bins (exponent kMinExponent first), then
// below, above, zero, NaN, +Inf, -Inf: the layout the fused CUDA kernel writes
// too, defined once in ProbeElementRules.h.
namespace histogram_slot {
inline constexpr int64_t kBelow = probe_rules::kBelowSlot;
inline constexpr int64_t kAbove = probe_rules::kAboveSlot;
inline constexpr int64_t kZero = probe_rules::kZeroSlot;
inline constexpr int64_t kNan = probe_rules::kNanSlot;
inline constexpr int64_t kPosInf = probe_rules::kPosInfSlot;
inline constexpr int64_t kNegInf = probe_rules::kNegInfSlot;
inline constexpr int64_t kCount = probe_rules::kHistogramSlots;

// a where c holds, else b, as bit logic: a data-dependent branch would mispredict on
// activation gradients, half zeros in no pattern (ReLU, max pooling), and GCC turned
// the ?: of an earlier version into exactly that branch (6x slower on such a tensor).
inline uint32_t choose(bool c, uint32_t a, uint32_t b) {
    const uint32_t mask = 0u - static_cast<uint32_t>(c);
    return (a & mask) | (b & ~mask);
}

// A value's slot from its fp32 bits, probe_rules::histogramSlot()'s rule without a
// branch on the value: the exponent bins, `below` past the lowest (fp32 subnormals
// included), `above` past the highest, zero, NaN, and the infinity of its sign. For the
// CPU passes (the histogram probe's, the precision map's).
inline uint32_t ofBits(uint32_t bits) {
    const uint32_t magnitude = bits & probe_rules::kMagnitudeMask;
    const uint32_t e = magnitude >> 23;
    uint32_t s = e - probe_rules::kLowestBiased;
    s = choose(e < probe_rules::kLowestBiased, static_cast<uint32_t>(kBelow), s);
    s = choose(e > probe_rules::kHighestBiased, static_cast<uint32_t>(kAbove), s);
    static_assert(kNegInf == kPosInf + 1);
    s = choose(magnitude == probe_rules::kInfBits, static_cast<uint32_t>(kPosInf) + (bits >> 31), s);
    s = choose(magnitude == 0, static_cast<uint32_t>(kZero), s);
    return choose(magnitude > probe_rules::kInfBits, static_cast<uint32_t>(kNan), s);
}

// Counts of slots, into four interleaved sub-histograms: gradients crowd into a few
// bins, and incrementing one counter back to back stalls on its own store. The CPU
// passes' one way of counting (the histogram probe's, the precision map's).
struct SlotCounts {
    std::array<std::array<int64_t, kCount>, 4> sub{};

    void add(const uint32_t* slots, int64_t n) {
        int64_t i = 0;
        for (; i + 4 <= n; i += 4) {
            ++sub[0][slots[i]];
            ++sub[1][slots[i + 1]];
            ++sub[2][slots[i + 2]];
            ++sub[3][slots[i + 3]];
        }
        for (; i < n; ++i) ++sub[0][slots[i]];
    }
    int64_t count(size_t k) const { return sub[0][k] + sub[1][k] + sub[2][k] + sub[3][k]; }
};
}  // namespace histogram_slot

// Histogram slots of one tensor, or of several as one histogram (a layer's
// weight and bias gradients); undefined tensors in the list are skipped. The
// tensors must share a device. No host synchronisation.
torch::Tensor histogramSlots(const torch::Tensor& values);
torch::Tensor histogramSlots(const std::vector<torch::Tensor>& values);

// Reads slots that are already on the host (histogram_slot::kCount values).
ExponentHistogram histogramFromSlots(const double* slots);

// One tensor or one list, read with one host copy.
ExponentHistogram computeExponentHistogram(const torch::Tensor& values);
ExponentHistogram computeExponentHistogram(const std::vector<torch::Tensor>& values);

namespace probe_detail {
// The torch-ops path that non-CPU devices take, callable on CPU so tests can
// check it against the single-pass CPU path.
torch::Tensor histogramSlotsWithTorchOps(const torch::Tensor& values);
}  // namespace probe_detail

}  // namespace ampscope
