#include "precision/formats/CpuQuantizeLoops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "common/CpuClones.h"
#include "precision/formats/ScalingRules.h"

// Built with -ffp-contract=off (precision/sources.cmake): a fused multiply-add would
// skip a rounding the reference paths make, and the values must stay equal bit for bit.
//
// Vectorised by the compiler from plain loops (why not intrinsics: one source for
// every instruction set, which the tests check against the scalar codec and the torch
// ops), each exported pass cloned for AVX-512, AVX2 and plain x86-64 and picked at
// load time by the CPU it runs on (common/CpuClones.h). Every step is an IEEE
// operation (multiply, divide, add, compare, bit logic) that gives the same bits in a
// vector lane as in a scalar register. Two habits keep the loops vectorisable without
// -fno-trapping-math: values are formed unconditionally and then chosen by a bit mask
// (choose()), and the floor of a non-negative value is a truncation to an integer.
// The helpers are inlined into each clone, so they are compiled for its instruction set.
#define AMPSCOPE_ALWAYS_INLINE inline __attribute__((always_inline))

namespace ampscope::cpu_quantize {

namespace {

constexpr uint32_t kMagnitudeMask = 0x7fffffffu;
constexpr uint32_t kInfBits = 0x7f800000u;
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

AMPSCOPE_ALWAYS_INLINE uint32_t bitsOf(float v) {
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}
AMPSCOPE_ALWAYS_INLINE float floatOf(uint32_t b) {
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

// a where c holds, else b: a select the compiler vectorises whatever a and b took to form.
AMPSCOPE_ALWAYS_INLINE float choose(bool c, float a, float b) {
    const uint32_t mask = 0u - static_cast<uint32_t>(c);
    return floatOf((bitsOf(a) & mask) | (bitsOf(b) & ~mask));
}

AMPSCOPE_ALWAYS_INLINE double chooseDouble(bool c, double a, double b) {
    uint64_t ab, bb;
    std::memcpy(&ab, &a, sizeof ab);
    std::memcpy(&bb, &b, sizeof bb);
    const uint64_t mask = 0u - static_cast<uint64_t>(c);
    const uint64_t r = (ab & mask) | (bb & ~mask);
    double v;
    std::memcpy(&v, &r, sizeof v);
    return v;
}

// floor(v) for v >= 0 or NaN (NaN stays): below 2^23 the truncation to an integer,
// from 2^23 on v itself (no fraction bits left).
AMPSCOPE_ALWAYS_INLINE float floorOfNonNegative(float v) {
    constexpr float kWhole = 8388608.0f;  // 2^23
    const bool small = v < kWhole;
    const float truncated = static_cast<float>(static_cast<int32_t>(choose(small, v, 0.0f)));
    return choose(small, truncated, v);
}

// 2^e for e in [-149, 127], exactly (subnormal below -126).
AMPSCOPE_ALWAYS_INLINE float powerOfTwo(int e) {
    return e >= -126 ? floatOf(static_cast<uint32_t>(e + 127) << 23) : floatOf(1u << (e + 149));
}

// |x| (its magnitude bits) on the element's grid, before saturation: the exponent
// field f of |x| clamped to [minField, 254] (NaN and Inf take 254 and stay NaN and
// Inf) scales |x| by 2^(M - e) and back by 2^(e - M), both exact powers of two; the
// units between are rounded to an integer, nearest even (adding 2^23 leaves no
// fraction bits, and the FPU's default mode rounds that addition to nearest even; the
// codebase builds without -ffast-math, so the sum is not folded away) or
// stochastically (up when the draw is below the fraction), as roundElements() does.
template <bool Stochastic>
AMPSCOPE_ALWAYS_INLINE float roundMagnitude(uint32_t magnitudeBits, ElementRounding r, float uniform) {
    const float magnitude = floatOf(magnitudeBits);
    int field = static_cast<int>(magnitudeBits >> 23);
    field = field < r.minField ? r.minField : (field > 254 ? 254 : field);
    const float down = floatOf(static_cast<uint32_t>(r.mantissaBits + 254 - field) << 23);
    const float up = floatOf(static_cast<uint32_t>(field - r.mantissaBits) << 23);
    const float units = magnitude * down;
    float whole;
    if constexpr (Stochastic) {
        const float below = floorOfNonNegative(units);
        whole = below + choose(uniform < units - below, 1.0f, 0.0f);
    } else {
        constexpr float kShift = 8388608.0f;  // 2^23
        whole = choose(units < kShift, (units + kShift) - kShift, units);
    }
    return whole * up;
}

// One element rounded and saturated (overflow and Inf to maxFinite; NaN stays), with
// the sign of x. `saturated` counts a finite x that rounded past maxFinite.
template <bool Stochastic>
AMPSCOPE_ALWAYS_INLINE float roundElement(float x, ElementRounding r, float uniform, int64_t& saturated) {
    const uint32_t magnitudeBits = bitsOf(x) & kMagnitudeMask;
    float rounded = roundMagnitude<Stochastic>(magnitudeBits, r, uniform);
    saturated += (rounded > r.maxFinite) & (magnitudeBits != kInfBits);
    rounded = choose(rounded > r.maxFinite, r.maxFinite, rounded);
    return std::copysign(rounded, x);
}

// Per-tensor rounding; with Amax, the largest finite |x| of the input from the same
// read (delayed scaling records it after the tensor is cast).
template <bool Stochastic, bool Counting, bool Amax>
AMPSCOPE_ALWAYS_INLINE void roundScaledLoop(const float* __restrict x, float* __restrict out, int64_t n,
                                            ElementRounding r, float scale, float inverseScale,
                                            const float* __restrict uniforms, int64_t& saturated,
                                            uint32_t& amaxBits) {
    int64_t counted = 0;
    uint32_t amax = amaxBits;
    for (int64_t i = 0; i < n; ++i) {
        int64_t over = 0;
        out[i] = roundElement<Stochastic>(x[i] * scale, r, Stochastic ? uniforms[i] : 0.0f, over) * inverseScale;
        if constexpr (Counting) counted += over;
        if constexpr (Amax) {
            const uint32_t b = bitsOf(x[i]) & kMagnitudeMask;
            amax = std::max(amax, b & (0u - static_cast<uint32_t>(b < kInfBits)));
        }
    }
    saturated += counted;
    amaxBits = amax;
}

// ---- the block formats' scales -------------------------------------------------

// MX: scale 2^e with e = floor(log2 amax) - emax (fp32 subnormals and zero give
// floor = -127), one up under rceil when amax > maxFinite * 2^e (exact in fp32: the
// element formats' largest values have at most three significant bits), clamped to
// e8m0's range. The elements are multiplied by 2^-e: for a power of two that is
// exactly the division x / 2^e the reference makes.
struct MxRule {
    int emax = 0;
    float maxFinite = 0.0f;
    bool rceil = false;
};
struct MxScale {
    int exponent;
    float scale;
    float inverse;
};
AMPSCOPE_ALWAYS_INLINE MxScale mxScale(uint32_t amaxBits, MxRule rule) {
    int e = static_cast<int>(amaxBits >> 23) - 127 - rule.emax;
    if (rule.rceil) e += floatOf(amaxBits) > rule.maxFinite * powerOfTwo(e) ? 1 : 0;
    e = e < kE8m0MinExponent ? kE8m0MinExponent : (e > kE8m0MaxExponent ? kE8m0MaxExponent : e);
    return {e, powerOfTwo(e), powerOfTwo(-e)};
}

// NVFP4: the block scale rounded to e4m3 from amax / 6 / s_tensor (in that order),
// times s_tensor; 0 when it rounded to 0 (the block then holds zeros of its signs).
struct Nvfp4Rule {
    ElementRounding e4m3;
    float e2m1Max = 0.0f;
    float tensorScale = 1.0f;
};
AMPSCOPE_ALWAYS_INLINE float nvfp4BlockScale(float amax, Nvfp4Rule rule) {
    int64_t unused = 0;
    return roundElement<false>(amax / rule.e2m1Max / rule.tensorScale, rule.e4m3, 0.0f, unused);
}

// The largest magnitude's bits over n values: an Inf or NaN among them gives bits at
// or above kInfBits. For finite non-negative floats the integer order of the bits is
// their order, so this is the amax without a float comparison.
AMPSCOPE_ALWAYS_INLINE uint32_t maxMagnitudeBits(const float* x, int64_t n) {
    uint32_t m = 0;
    for (int64_t i = 0; i < n; ++i) m = std::max(m, bitsOf(x[i]) & kMagnitudeMask);
    return m;
}
// Over the finite values only.
AMPSCOPE_ALWAYS_INLINE uint32_t maxFiniteMagnitudeBits(const float* x, int64_t n) {
    uint32_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t b = bitsOf(x[i]) & kMagnitudeMask;
        // A mask rather than a select: the compiler keeps this a plain max reduction.
        m = std::max(m, b & (0u - static_cast<uint32_t>(b < kInfBits)));
    }
    return m;
}

AMPSCOPE_ALWAYS_INLINE void countExponent(Counts* counts, int exponent) {
    ++counts->exponents[static_cast<size_t>(std::clamp(exponent + Counts::kExponentOffset, 0, 255))];
}

// A finite block's elements zeroed while one of them survived (its outlier set a
// scale too coarse for the others).
AMPSCOPE_ALWAYS_INLINE void countCrushed(const float* __restrict in, const float* __restrict o, int64_t n,
                                         Counts* counts) {
    int64_t zeroed = 0, survivors = 0;
    for (int64_t i = 0; i < n; ++i) {
        zeroed += (in[i] != 0.0f) & (o[i] == 0.0f);
        survivors += o[i] != 0.0f;
    }
    if (survivors) counts->crushedByOutlier += zeroed;
}

// ---- contiguous blocks (inner == 1) ------------------------------------------

// One block of n <= the block size, contiguous. A block holding NaN or Inf is NaN
// throughout; counting, its finite elements that would saturate under the scale of its
// finite amax are still counted, as the torch path counts them.
template <bool Stochastic, bool Counting>
AMPSCOPE_ALWAYS_INLINE void mxBlock(const float* __restrict in, float* __restrict o, int64_t n, ElementRounding r,
                                    MxRule rule, const float* __restrict u, Counts* counts) {
    int64_t saturated = 0;
    const uint32_t amax = maxMagnitudeBits(in, n);
    if (amax >= kInfBits) {
        for (int64_t i = 0; i < n; ++i) o[i] = kNan;
        if constexpr (Counting) {
            ++counts->blocks;
            const MxScale s = mxScale(maxFiniteMagnitudeBits(in, n), rule);
            for (int64_t i = 0; i < n; ++i) (void)roundElement<Stochastic>(in[i] * s.inverse, r, Stochastic ? u[i] : 0.0f, saturated);
            counts->saturated += saturated;
        }
        return;
    }
    const MxScale s = mxScale(amax, rule);
    for (int64_t i = 0; i < n; ++i) {
        int64_t over = 0;
        o[i] = roundElement<Stochastic>(in[i] * s.inverse, r, Stochastic ? u[i] : 0.0f, over) * s.scale;
        if constexpr (Counting) saturated += over;
    }
    if constexpr (Counting) {
        ++counts->blocks;
        counts->saturated += saturated;
        if (amax > 0) countExponent(counts, s.exponent);
        countCrushed(in, o, n, counts);
    }
}

template <bool Stochastic, bool Counting>
AMPSCOPE_ALWAYS_INLINE void nvfp4Block(const float* __restrict in, float* __restrict o, int64_t n,
                                       ElementRounding r, Nvfp4Rule rule, const float* __restrict u,
                                       Counts* counts) {
    int64_t saturated = 0;
    const uint32_t amaxBits = maxMagnitudeBits(in, n);
    const bool finite = amaxBits < kInfBits;
    const float amax = floatOf(finite ? amaxBits : maxFiniteMagnitudeBits(in, n));
    const float blockScale = nvfp4BlockScale(amax, rule);
    const float total = blockScale * rule.tensorScale;
    if (!finite) {
        for (int64_t i = 0; i < n; ++i) o[i] = kNan;
        if constexpr (Counting) {
            ++counts->blocks;
            if (total > 0.0f)
                for (int64_t i = 0; i < n; ++i) (void)roundElement<Stochastic>(in[i] / total, r, Stochastic ? u[i] : 0.0f, saturated);
            counts->saturated += saturated;
        }
        return;
    }
    if (total > 0.0f) {
        for (int64_t i = 0; i < n; ++i) {
            int64_t over = 0;
            o[i] = roundElement<Stochastic>(in[i] / total, r, Stochastic ? u[i] : 0.0f, over) * total;
            if constexpr (Counting) saturated += over;
        }
    } else {
        for (int64_t i = 0; i < n; ++i) o[i] = std::copysign(0.0f, in[i]);
    }
    if constexpr (Counting) {
        ++counts->blocks;
        counts->saturated += saturated;
        if (blockScale > 0.0f) countExponent(counts, static_cast<int>(bitsOf(blockScale) >> 23) - 127);
        if (amax > 0.0f && blockScale == 0.0f) ++counts->zeroScaleBlocks;
        countCrushed(in, o, n, counts);
    }
}

// Rows [first, last) of contiguous blocks along the last dimension.
template <int BlockSize, bool Stochastic, bool Counting, class Block>
AMPSCOPE_ALWAYS_INLINE void contiguousRows(const float* x, float* out, int64_t rowLength, int64_t first,
                                           int64_t last, const float* uniforms, Counts* counts, Block block) {
    for (int64_t row = first; row < last; ++row) {
        const float* in = x + row * rowLength;
        float* o = out + row * rowLength;
        const float* u = Stochastic ? uniforms + row * rowLength : nullptr;
        int64_t start = 0;
        for (; start + BlockSize <= rowLength; start += BlockSize)
            block.template operator()<Stochastic, Counting>(in + start, o + start, BlockSize,
                                                            Stochastic ? u + start : nullptr, counts);
        if (start < rowLength)
            block.template operator()<Stochastic, Counting>(in + start, o + start, rowLength - start,
                                                            Stochastic ? u + start : nullptr, counts);
    }
}

// ---- blocks across rows (inner > 1), counted --------------------------------
//
// A probe step's pass: each block (one column of `rows` values `inner` apart) gathered
// into a contiguous run, quantized and counted by the contiguous blocks' own code, and
// its values put back. The same values and counts as the tensor with its blocks moved
// last, without a moved copy of the tensor (a conv's activation or output gradient).
template <int BlockSize, bool Stochastic, class Block>
AMPSCOPE_ALWAYS_INLINE void gatheredColumns(const float* x, float* out, const BlockedView& view, int64_t first,
                                            int64_t last, const float* uniforms, Counts* counts, Block block) {
    const int64_t K = view.reduction, inner = view.inner;
    alignas(64) float column[BlockSize];
    alignas(64) float quantized[BlockSize];
    for (int64_t o = first; o < last; ++o) {
        for (int64_t k0 = 0; k0 < K; k0 += BlockSize) {
            const int64_t rows = std::min<int64_t>(BlockSize, K - k0);
            const float* in = x + (o * K + k0) * inner;
            float* q = out + (o * K + k0) * inner;
            for (int64_t i = 0; i < inner; ++i) {
                for (int64_t r = 0; r < rows; ++r) column[r] = in[r * inner + i];
                // Drawn in blocks-last order: element (o, k, i) took draw (o * inner + i) * K + k.
                const float* u = Stochastic ? uniforms + (o * inner + i) * K + k0 : nullptr;
                block.template operator()<Stochastic, true>(column, quantized, rows, u, counts);
                for (int64_t r = 0; r < rows; ++r) q[r * inner + i] = quantized[r];
            }
        }
    }
}

// ---- blocks across rows (inner > 1) ------------------------------------------
//
// The blocks of positions [i0, i0 + width) of one outer index and one run of block
// rows: each block is one column of `rows` values `inner` apart. The columns of a tile
// are side by side in memory, so the loops run along them (vector lanes are columns):
// the amax of every column, its scale, then each row of the tile quantized.
constexpr int64_t kTileWidth = 64;

template <bool Stochastic, class ScaleOf, class Quantize>
AMPSCOPE_ALWAYS_INLINE void columnTiles(const float* x, float* out, const BlockedView& view, int64_t first,
                                        int64_t last, int64_t blockSize, const float* uniforms, ScaleOf scaleOf,
                                        Quantize quantize) {
    const int64_t K = view.reduction, inner = view.inner;
    alignas(64) uint32_t amax[kTileWidth];
    alignas(64) float scale[kTileWidth];
    alignas(64) float step[kTileWidth];  // what the elements are multiplied (MX) or divided (NVFP4) by
    alignas(64) float draws[kTileWidth];
    for (int64_t o = first; o < last; ++o) {
        for (int64_t k0 = 0; k0 < K; k0 += blockSize) {
            const int64_t rows = std::min(blockSize, K - k0);
            const float* in = x + (o * K + k0) * inner;
            float* q = out + (o * K + k0) * inner;
            for (int64_t i0 = 0; i0 < inner; i0 += kTileWidth) {
                const int64_t width = std::min(kTileWidth, inner - i0);
                for (int64_t j = 0; j < width; ++j) amax[j] = 0;
                for (int64_t r = 0; r < rows; ++r) {
                    const float* row = in + r * inner + i0;
                    for (int64_t j = 0; j < width; ++j) amax[j] = std::max(amax[j], bitsOf(row[j]) & kMagnitudeMask);
                }
                for (int64_t j = 0; j < width; ++j) scaleOf(amax[j], scale[j], step[j]);
                for (int64_t r = 0; r < rows; ++r) {
                    const float* row = in + r * inner + i0;
                    float* qrow = q + r * inner + i0;
                    if constexpr (Stochastic) {
                        // Drawn in blocks-last order: element (o, k, i) took draw (o * inner + i) * K + k.
                        const float* u = uniforms + (o * inner + i0) * K + k0 + r;
                        for (int64_t j = 0; j < width; ++j) draws[j] = u[j * K];
                    }
                    for (int64_t j = 0; j < width; ++j)
                        qrow[j] = choose(amax[j] >= kInfBits, kNan,
                                         quantize(row[j], scale[j], step[j], Stochastic ? draws[j] : 0.0f));
                }
            }
        }
    }
}

template <bool Stochastic>
AMPSCOPE_ALWAYS_INLINE void mxColumns(const float* x, float* out, const BlockedView& view, int64_t first,
                                      int64_t last, ElementRounding r, MxRule rule,
                                      const float* uniforms) {
    columnTiles<Stochastic>(
        x, out, view, first, last, kMxBlockSize, uniforms,
        [&](uint32_t amax, float& scale, float& inverse) __attribute__((always_inline)) {
            const MxScale s = mxScale(amax, rule);
            scale = s.scale;
            inverse = s.inverse;
        },
        [&](float v, float scale, float inverse, float draw) __attribute__((always_inline)) {
            int64_t unused = 0;
            return roundElement<Stochastic>(v * inverse, r, draw, unused) * scale;
        });
}

template <bool Stochastic>
AMPSCOPE_ALWAYS_INLINE void nvfp4Columns(const float* x, float* out, const BlockedView& view, int64_t first,
                                         int64_t last, ElementRounding r, Nvfp4Rule rule,
                                         const float* uniforms) {
    columnTiles<Stochastic>(
        x, out, view, first, last, kNvfp4BlockSize, uniforms,
        [&](uint32_t amax, float& unused, float& total) __attribute__((always_inline)) {
            unused = 0.0f;
            total = nvfp4BlockScale(floatOf(amax), rule) * rule.tensorScale;
        },
        [&](float v, float, float total, float draw) __attribute__((always_inline)) {
            int64_t unused = 0;
            return choose(total > 0.0f, roundElement<Stochastic>(v / total, r, draw, unused) * total,
                          std::copysign(0.0f, v));
        });
}

// The exported passes, one clone per instruction set; the branches between the
// variants are taken once per call, outside the loops.
AMPSCOPE_CPU_CLONES
void roundScaledPass(const float* x, float* out, int64_t n, ElementRounding r, float scale,
                     float inverseScale, const float* uniforms, int64_t* saturated, uint32_t* amaxBits) {
    int64_t counted = 0;
    uint32_t amax = 0;
    const auto loop = [&]<bool Stochastic, bool Counting, bool Amax>() __attribute__((always_inline)) {
        roundScaledLoop<Stochastic, Counting, Amax>(x, out, n, r, scale, inverseScale, uniforms, counted, amax);
    };
    if (uniforms) {
        if (saturated) loop.template operator()<true, true, false>();
        else if (amaxBits) loop.template operator()<true, false, true>();
        else loop.template operator()<true, false, false>();
    } else {
        if (saturated) loop.template operator()<false, true, false>();
        else if (amaxBits) loop.template operator()<false, false, true>();
        else loop.template operator()<false, false, false>();
    }
    if (saturated) *saturated += counted;
    if (amaxBits) *amaxBits = std::max(*amaxBits, amax);
}

AMPSCOPE_CPU_CLONES
uint32_t finiteMagnitudePass(const float* x, int64_t n) { return maxFiniteMagnitudeBits(x, n); }

// bf16 as torch's float -> bfloat16 conversion rounds (nearest even on the bit pattern:
// add 0x7fff and the lowest kept bit, drop the low 16 bits), then saturated: a finite
// value that rounded to Inf counts as saturated, Inf and overflow become the largest
// bf16 of their sign, NaN stays NaN.
AMPSCOPE_CPU_CLONES
void roundBf16Pass(const float* __restrict x, float* __restrict out, int64_t n, int64_t* saturated) {
    const float maxBf16 = floatOf(0x7f7f0000u);
    int64_t counted = 0;
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t b = bitsOf(x[i]);
        const uint32_t magnitude = b & kMagnitudeMask;
        const uint32_t rounded = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;
        const bool infinite = (rounded & kMagnitudeMask) >= kInfBits;
        counted += infinite & (magnitude < kInfBits);
        const float value = choose(infinite, std::copysign(maxBf16, x[i]), floatOf(rounded));
        out[i] = choose(magnitude > kInfBits, x[i], value);  // NaN's sum could carry into the sign
    }
    if (saturated) *saturated += counted;
}


AMPSCOPE_CPU_CLONES
void mxPass(const float* x, float* out, const BlockedView& view, int64_t first, int64_t last,
            ElementRounding r, MxRule rule, const float* uniforms, Counts* counts) {
    const auto block = [&]<bool Stochastic, bool Counting>(const float* in, float* o, int64_t n, const float* u,
                                                          Counts* c) __attribute__((always_inline)) {
        mxBlock<Stochastic, Counting>(in, o, n, r, rule, u, c);
    };
    if (view.inner > 1) {
        if (counts && uniforms) gatheredColumns<kMxBlockSize, true>(x, out, view, first, last, uniforms, counts, block);
        else if (counts) gatheredColumns<kMxBlockSize, false>(x, out, view, first, last, uniforms, counts, block);
        else if (uniforms) mxColumns<true>(x, out, view, first, last, r, rule, uniforms);
        else mxColumns<false>(x, out, view, first, last, r, rule, uniforms);
        return;
    }
    if (uniforms) {
        if (counts) contiguousRows<kMxBlockSize, true, true>(x, out, view.reduction, first, last, uniforms, counts, block);
        else contiguousRows<kMxBlockSize, true, false>(x, out, view.reduction, first, last, uniforms, counts, block);
    } else {
        if (counts) contiguousRows<kMxBlockSize, false, true>(x, out, view.reduction, first, last, uniforms, counts, block);
        else contiguousRows<kMxBlockSize, false, false>(x, out, view.reduction, first, last, uniforms, counts, block);
    }
}

AMPSCOPE_CPU_CLONES
void nvfp4Pass(const float* x, float* out, const BlockedView& view, int64_t first, int64_t last,
               ElementRounding r, Nvfp4Rule rule, const float* uniforms, Counts* counts) {
    const auto block = [&]<bool Stochastic, bool Counting>(const float* in, float* o, int64_t n, const float* u,
                                                          Counts* c) __attribute__((always_inline)) {
        nvfp4Block<Stochastic, Counting>(in, o, n, r, rule, u, c);
    };
    if (view.inner > 1) {
        if (counts && uniforms) gatheredColumns<kNvfp4BlockSize, true>(x, out, view, first, last, uniforms, counts, block);
        else if (counts) gatheredColumns<kNvfp4BlockSize, false>(x, out, view, first, last, uniforms, counts, block);
        else if (uniforms) nvfp4Columns<true>(x, out, view, first, last, r, rule, uniforms);
        else nvfp4Columns<false>(x, out, view, first, last, r, rule, uniforms);
        return;
    }
    if (uniforms) {
        if (counts) contiguousRows<kNvfp4BlockSize, true, true>(x, out, view.reduction, first, last, uniforms, counts, block);
        else contiguousRows<kNvfp4BlockSize, true, false>(x, out, view.reduction, first, last, uniforms, counts, block);
    } else {
        if (counts) contiguousRows<kNvfp4BlockSize, false, true>(x, out, view.reduction, first, last, uniforms, counts, block);
        else contiguousRows<kNvfp4BlockSize, false, false>(x, out, view.reduction, first, last, uniforms, counts, block);
    }
}

// measure(): the four sums are added in element order, one element at a time (their
// bits are part of the records, and reordering would change them); so the terms of a
// run of elements are formed first, vectorised and branch-free, and then added in
// order, four independent chains. An element left out adds +0.0, which changes no sum
// (none of them is ever -0.0).
struct MeasureSums {
    int64_t nonFinite = 0, nonZero = 0, underflowed = 0, saturated = 0;
    double magnitudeError = 0.0, absoluteSignal = 0.0, squaredError = 0.0, squaredSignal = 0.0;
    uint32_t amax = 0;
};

AMPSCOPE_CPU_CLONES
void measurePass(const float* x, const float* q, const bool* overflowed, int64_t n, MeasureSums& sums) {
    constexpr int64_t kRun = 256;
    alignas(64) double magnitude[kRun], absolute[kRun], squaredError[kRun], squaredSignal[kRun];
    for (int64_t begin = 0; begin < n; begin += kRun) {
        const int64_t count = std::min(kRun, n - begin);
        const float* __restrict xs = x + begin;
        const float* __restrict qs = q + begin;
        int64_t nonFinite = 0, nonZero = 0, underflowed = 0;
        uint32_t amax = sums.amax;
        for (int64_t i = 0; i < count; ++i) {
            const uint32_t vBits = bitsOf(xs[i]) & kMagnitudeMask;
            const bool finite = vBits < kInfBits;
            const bool both = finite & ((bitsOf(qs[i]) & kMagnitudeMask) < kInfBits);
            const bool counted = finite & (vBits != 0);
            nonFinite += !finite;
            nonZero += counted;
            underflowed += counted & (qs[i] == 0.0f);
            amax = std::max(amax, vBits & (0u - static_cast<uint32_t>(finite)));
            const double signal = chooseDouble(both, static_cast<double>(xs[i]), 0.0);
            const double error = chooseDouble(both, static_cast<double>(qs[i]) - signal, 0.0);
            magnitude[i] = chooseDouble(signal > 0, error, chooseDouble(signal < 0, -error, 0.0));
            absolute[i] = std::fabs(signal);
            squaredError[i] = error * error;
            squaredSignal[i] = signal * signal;
        }
        for (int64_t i = 0; i < count; ++i) {
            sums.magnitudeError += magnitude[i];
            sums.absoluteSignal += absolute[i];
            sums.squaredError += squaredError[i];
            sums.squaredSignal += squaredSignal[i];
        }
        sums.nonFinite += nonFinite;
        sums.nonZero += nonZero;
        sums.underflowed += underflowed;
        sums.amax = amax;
        if (overflowed)
            for (int64_t i = 0; i < count; ++i) sums.saturated += overflowed[begin + i];
    }
}

}  // namespace

void Counts::add(const Counts& other) {
    saturated += other.saturated;
    blocks += other.blocks;
    zeroScaleBlocks += other.zeroScaleBlocks;
    crushedByOutlier += other.crushedByOutlier;
    for (size_t i = 0; i < exponents.size(); ++i) exponents[i] += other.exponents[i];
}

void Counts::addTo(QuantizationStats& stats) const {
    stats.saturated += saturated;
    stats.blocks += blocks;
    stats.zeroScaleBlocks += zeroScaleBlocks;
    stats.crushedByOutlier += crushedByOutlier;
    for (size_t i = 0; i < exponents.size(); ++i)
        if (exponents[i]) stats.blockScaleExponents[static_cast<int>(i) - kExponentOffset] += exponents[i];
}

ElementRounding elementRounding(NumberFormat format) {
    if (format != NumberFormat::E4M3 && format != NumberFormat::E5M2 && format != NumberFormat::E2M1 &&
        format != NumberFormat::Fp16)
        throw std::invalid_argument("the CPU loops round fp16, e4m3, e5m2 and e2m1 elements (bf16: roundBf16)");
    const FormatDescription& d = describe(format);
    return {d.mantissaBits, d.minExponent() + 127, static_cast<float>(d.maxFinite)};
}

float finiteAbsMax(const float* x, int64_t n) { return floatOf(finiteMagnitudePass(x, n)); }

void roundScaled(const float* x, float* out, int64_t n, const ElementRounding& r, float scale,
                 float inverseScale, const float* uniforms, Counts* counts, float* inputAmax) {
    uint32_t amax = inputAmax ? bitsOf(*inputAmax) : 0;
    // The amax rides along only without counts: statistics measure x's amax themselves.
    roundScaledPass(x, out, n, r, scale, inverseScale, uniforms, counts ? &counts->saturated : nullptr,
                    inputAmax && !counts ? &amax : nullptr);
    if (inputAmax && !counts) *inputAmax = floatOf(amax);
}

void roundBf16(const float* x, float* out, int64_t n, Counts* counts) {
    roundBf16Pass(x, out, n, counts ? &counts->saturated : nullptr);
}

void quantizeMx(const float* x, float* out, const BlockedView& view, int64_t first, int64_t last,
                NumberFormat element, bool rceil, const float* uniforms, Counts* counts) {
    const ElementRounding r = elementRounding(element);
    const FormatDescription& d = describe(element);
    const MxRule rule{d.maxExponent(), static_cast<float>(d.maxFinite), rceil};
    mxPass(x, out, view, first, last, r, rule, uniforms, counts);
}

void quantizeNvfp4(const float* x, float* out, const BlockedView& view, int64_t first, int64_t last,
                   float tensorScale, const float* uniforms, Counts* counts) {
    const ElementRounding e2m1 = elementRounding(NumberFormat::E2M1);
    const Nvfp4Rule rule{elementRounding(NumberFormat::E4M3), e2m1.maxFinite, tensorScale};
    nvfp4Pass(x, out, view, first, last, e2m1, rule, uniforms, counts);
}

namespace {

QuantizationStats statisticsOf(const MeasureSums& sums, int64_t n) {
    QuantizationStats s;
    s.elements = n;
    s.nonFinite = sums.nonFinite;
    s.nonZero = sums.nonZero;
    s.underflowed = sums.underflowed;
    s.saturated = sums.saturated;
    s.magnitudeError = sums.magnitudeError;
    s.absoluteSignal = sums.absoluteSignal;
    s.squaredError = sums.squaredError;
    s.squaredSignal = sums.squaredSignal;
    s.amax = floatOf(sums.amax);
    return s;
}

}  // namespace

QuantizationStats measure(const float* x, const float* q, const bool* overflowed, int64_t n) {
    MeasureSums sums;
    measurePass(x, q, overflowed, n, sums);
    return statisticsOf(sums, n);
}

QuantizationStats measureBlocksLast(const float* x, const float* q, const BlockedView& view, int64_t begin,
                                    int64_t count) {
    if (view.inner == 1) return measure(x + begin, q + begin, nullptr, count);
    // measurePass adds its terms one element at a time in the order given, so runs of
    // gathered elements fed to it in turn sum exactly as one pass over the moved tensor.
    constexpr int64_t kRun = 512;
    alignas(64) float xs[kRun];
    alignas(64) float qs[kRun];
    MeasureSums sums;
    const int64_t K = view.reduction, inner = view.inner, end = begin + count;
    int64_t filled = 0;
    for (int64_t f = begin; f < end;) {
        // Position f of the moved tensor is element (o, k, i), with f = (o * inner + i) * K + k.
        const int64_t row = f / K, k = f % K, o = row / inner, i = row % inner;
        const int64_t take = std::min(K - k, end - f);
        const int64_t at = (o * K + k) * inner + i;
        for (int64_t t = 0; t < take; ++t) {
            xs[filled] = x[at + t * inner];
            qs[filled] = q[at + t * inner];
            if (++filled == kRun) {
                measurePass(xs, qs, nullptr, kRun, sums);
                filled = 0;
            }
        }
        f += take;
    }
    if (filled) measurePass(xs, qs, nullptr, filled, sums);
    return statisticsOf(sums, count);
}

}  // namespace ampscope::cpu_quantize
