#pragma once
// Plain (no torch). The format modes' fake quantization (and the format sweep's plain
// fp16 and bf16 casts) on the CPU as single passes over fp32 data: one read of each
// operand and one write of its quantized values, where the vectorised torch path of
// TensorQuantizers.cpp makes a dozen passes.
// Vectorised (AVX-512 or AVX2, chosen at run time, plain x86-64 elsewhere) and made
// of the same operations on the same floats as that path and the scalar codec, so
// the results are equal bit for bit (tests/core/precision/test_formats.cpp compares
// them); saturating only (the torch path keeps the non-saturating policy).
//
// The block formats read a tensor as it lies in memory, as [outer, reduction, inner]
// (BlockedView): the blocks run along `reduction`, so a conv activation's blocks
// along its channels are quantized in place of their layout, with no copy.
//
// `uniforms` (null: round to nearest even) holds one draw per element for stochastic
// rounding, in the order of the tensor with its blocks' dimension last (for a flat
// tensor, or inner == 1, the elements' own order): the caller draws them exactly as
// the torch path does, so both round alike. The draws of outer rows [a, b) are one
// stretch of that order, so a caller may hand a pass a slab of rows at a time with
// only that slab's draws (x, out and uniforms offset to the slab's first row).
#include <array>
#include <cstdint>

#include "precision/formats/FormatTable.h"
#include "precision/formats/QuantizationStats.h"

namespace ampscope::cpu_quantize {

// An element format's rounding: |x| = m * 2^(e - mantissaBits), m rounded.
struct ElementRounding {
    int mantissaBits = 0;
    int minField = 0;      // biased fp32 exponent field of the format's smallest normal
    float maxFinite = 0.0f;
};
ElementRounding elementRounding(NumberFormat format);  // fp16, e4m3, e5m2, e2m1 (bf16: roundBf16)

// A contiguous tensor as [outer, reduction, inner], row-major: blocks of consecutive
// indices along `reduction` (the last block of each run shorter when the run is not
// a multiple of the block). A linear operand [rows, K] is {rows, K, 1}; a conv
// activation [N, C, H, W] blocked along its channels is {N, C, H * W}.
struct BlockedView {
    int64_t outer = 1;
    int64_t reduction = 1;
    int64_t inner = 1;
    int64_t elements() const { return outer * reduction * inner; }
};

// What a pass counts for a probe step's statistics besides the values: elements that
// rounded past the format's largest value (finite where they were scaled to the
// format), and the block formats' fields of QuantizationStats.
struct Counts {
    static constexpr int kExponentOffset = 128;  // exponent e is counted at e + 128
    int64_t saturated = 0;
    int64_t blocks = 0;
    int64_t zeroScaleBlocks = 0;   // NVFP4: a finite block with amax > 0 whose scale rounded to 0
    int64_t crushedByOutlier = 0;  // finite blocks with a non-zero value: elements zeroed
    std::array<int64_t, 256> exponents{};  // of the finite blocks' non-zero scales

    void add(const Counts& other);
    // Adds saturated and the block fields to stats.
    void addTo(QuantizationStats& stats) const;
};

// The largest |x| over the finite elements (0 when none).
float finiteAbsMax(const float* x, int64_t n);

// out[i] = round(x[i] * scale) * inverseScale: per-tensor fp8 (scale 1 for a plain cast).
// inputAmax (without counts; may be null): raised to the largest finite |x[i]| (its
// starting value included), from the same read.
void roundScaled(const float* x, float* out, int64_t n, const ElementRounding& rounding, float scale,
                 float inverseScale, const float* uniforms = nullptr, Counts* counts = nullptr,
                 float* inputAmax = nullptr);

// out[i] = x[i] rounded to bf16 as torch's cast rounds it (nearest even), saturated to
// bf16's largest value (Inf too; NaN stays NaN). counts->saturated: finite values that
// rounded past it.
void roundBf16(const float* x, float* out, int64_t n, Counts* counts = nullptr);

// MX: blocks of kMxBlockSize along the view's reduction, an e8m0 scale per block by the
// floor or rceil rule; a block holding NaN or Inf becomes NaN. Outer rows [first, last)
// of the view (x and out point at the whole tensor). With counts, blocks across rows
// (inner > 1) are gathered one at a time: slower, for probe steps.
void quantizeMx(const float* x, float* out, const BlockedView& view, int64_t first, int64_t last,
                NumberFormat element, bool rceil, const float* uniforms = nullptr, Counts* counts = nullptr);

// NVFP4: blocks of kNvfp4BlockSize along the view's reduction, e4m3 block scales under
// the fp32 tensor scale s_tensor (nvfp4TensorScale of the tensor's finite amax).
void quantizeNvfp4(const float* x, float* out, const BlockedView& view, int64_t first, int64_t last,
                   float tensorScale, const float* uniforms = nullptr, Counts* counts = nullptr);

// What quantizing x to q did, over n elements, as TensorQuantizers' measure() defines
// it (counts, and the error sums in double over the elements finite before and
// after); `overflowed` (may be null) marks the saturated ones. Only the element
// statistics: no scale and no block fields. Parts add with addElementsOf().
QuantizationStats measure(const float* x, const float* q, const bool* overflowed, int64_t n);

// measure() of positions [begin, begin + count) of the view's tensor with its blocks
// moved last ([outer, inner, reduction]), read where they lie in x and q: the same
// statistics, bit for bit, as measure() over that stretch of the moved tensor.
QuantizationStats measureBlocksLast(const float* x, const float* q, const BlockedView& view, int64_t begin,
                                    int64_t count);

}  // namespace ampscope::cpu_quantize
