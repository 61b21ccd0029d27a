#include "probes/PrecisionMapCpuPass.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include <ATen/Parallel.h>

#include "common/CpuClones.h"
#include "probes/HistogramProbe.h"

// The comparison's per-element arithmetic in AVX-512 where the CPU has it (GCC and Clang
// on x86-64; chosen at run time, the build itself targets x86-64 without AVX).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AMPSCOPE_MAP_AVX512 1
#include <immintrin.h>
#else
#define AMPSCOPE_MAP_AVX512 0
#endif

namespace ampscope::map_pass {

namespace {

// 2^-e for the spacing exponent e, from the bits where that is a normal double.
inline double inversePowerOfTwo(int e) {
    const int biased = 1023 - e;
    if (biased < 1 || biased > 2046) return std::ldexp(1.0, -e);
    const uint64_t bits = static_cast<uint64_t>(biased) << 52;
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// |d| in units of the format's spacing at `magnitude` (finite, non-zero): the spacing is
// 2^(floor(log2 magnitude) - (bits - 1)), that floor clamped below at an unscaled
// format's smallest normal exponent.
inline double inUlps(double absError, double magnitude, const MapFormat& format) {
    uint64_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7FF);
    int e = biased ? biased - 1023 : std::ilogb(magnitude);  // a subnormal double: rare
    if (format.minExponent) e = std::max(e, *format.minExponent);
    return absError * inversePowerOfTwo(e - (format.bits - 1));
}

using histogram_slot::SlotCounts;

// The pass over a chunk, a block of kBlock elements at a time, in three steps: the block's
// values widened to double (exact from every floating dtype); each element's terms
// (squared errors, ulps) and counts, with no dependence between elements (AVX-512
// intrinsics eight at a time where the CPU has them, else a scalar loop); then the sums,
// each added to in element order, one addition per element as the one scalar loop did
// before (the sums are the record's: another order would round differently). An element
// that does not count towards a sum adds +0.0 to it, which leaves every sum (a sum of
// non-negative terms, never -0) as it was.
constexpr int64_t kBlock = 256;

struct BlockTerms {
    alignas(64) double err[kBlock];    // (m - r)^2, elements finite on both sides
    alignas(64) double ref[kBlock];    // r^2, the same elements
    alignas(64) double ulps[kBlock];   // |m - r| in ulps
    alignas(64) double ulpsSq[kBlock];
    alignas(64) double add[kBlock];    // (m - a)^2, elements with m and a finite
    alignas(64) double rerun[kBlock];  // a^2, the same elements
    alignas(64) double runMagnitude[kBlock];  // |m| where m and r are finite, else 0
    alignas(64) uint32_t runSlots[kBlock], referenceSlots[kBlock];
};

struct BlockCounts {
    int64_t finite = 0, flushed = 0, newNan = 0, newInf = 0;
    double ulpsMax = 0.0, top = 0.0;
    bool slowUlps = false;  // an element whose ulps need inUlps's rare paths
};

template <class T>
void widen(const T* in, int64_t n, double* out) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(in[i]);
}

AMPSCOPE_CPU_CLONES void widenFloat(const float* in, int64_t n, double* out) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(in[i]);
}

AMPSCOPE_CPU_CLONES void widenBFloat16(const uint16_t* in, int64_t n, double* out) {
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t bits = static_cast<uint32_t>(in[i]) << 16;
        float f;
        std::memcpy(&f, &bits, sizeof f);
        out[i] = static_cast<double>(f);
    }
}

void widenAny(const torch::Tensor& t, int64_t first, int64_t n, double* out) {
    switch (t.scalar_type()) {
        case torch::kHalf: return widen(reinterpret_cast<const c10::Half*>(t.data_ptr()) + first, n, out);
        case torch::kBFloat16: return widenBFloat16(reinterpret_cast<const uint16_t*>(t.data_ptr()) + first, n, out);
        case torch::kDouble: std::memcpy(out, reinterpret_cast<const double*>(t.data_ptr()) + first, n * sizeof(double)); return;
        default: return widenFloat(reinterpret_cast<const float*>(t.data_ptr()) + first, n, out);
    }
}

// A value's histogram slot, from the value rounded to fp32 as the histogram probe does
// (exact for fp32, fp16 and bf16 values; a double's fp32 rounding).
inline uint32_t slotOfDouble(double value) {
    const float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return histogram_slot::ofBits(bits);
}

// Each element's terms and the block's counts. inUlps's arithmetic without its branches:
// the spacing's exponent from the magnitude's bits and the power of two built from bits;
// a subnormal magnitude or a power of two past the normal doubles (a reference in fp64)
// is flagged for inUlps itself. The CPUs without AVX-512 take this loop; the others
// blockTermsAvx512 below, the same arithmetic eight elements at a time.
void blockTermsScalar(const double* m, const double* r, const double* a, int64_t n, int formatBits,
                                    int minExponent, bool clampExponent, BlockTerms& t, BlockCounts& c) {
    int64_t finite = 0, flushed = 0, newNan = 0, newInf = 0, slow = 0;
    double ulpsMax = c.ulpsMax, top = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double mi = m[i], ri = r[i];
        const bool mf = std::isfinite(mi), rf = std::isfinite(ri), both = mf & rf;
        newNan += std::isnan(mi) & !std::isnan(ri);
        newInf += std::isinf(mi) & rf;
        const double d = mi - ri;
        t.err[i] = both ? d * d : 0.0;
        t.ref[i] = both ? ri * ri : 0.0;
        finite += both;
        const double magnitude0 = ri != 0.0 ? std::abs(ri) : std::abs(mi);
        const double magnitude = both && magnitude0 > 0.0 ? magnitude0 : 1.0;
        uint64_t bits;
        std::memcpy(&bits, &magnitude, sizeof bits);
        const int biased = static_cast<int>((bits >> 52) & 0x7FF);
        int e = biased - 1023;
        if (clampExponent) e = std::max(e, minExponent);
        const int scaleBiased = 1023 - (e - (formatBits - 1));
        slow += both & ((biased == 0) | (scaleBiased < 1) | (scaleBiased > 2046));
        const uint64_t scaleBits = static_cast<uint64_t>(std::clamp(scaleBiased, 1, 2046)) << 52;
        double scale;
        std::memcpy(&scale, &scaleBits, sizeof scale);
        const double ulps = both ? std::abs(d) * scale : 0.0;
        t.ulps[i] = ulps;
        t.ulpsSq[i] = ulps * ulps;
        ulpsMax = std::max(ulpsMax, ulps);
        flushed += both & (mi == 0.0) & (ri != 0.0);
        const double am = both ? std::abs(mi) : 0.0;
        t.runMagnitude[i] = am;
        top = std::max(top, am);
        t.runSlots[i] = slotOfDouble(mi);
        t.referenceSlots[i] = slotOfDouble(ri);
    }
    if (a) {
        for (int64_t i = 0; i < n; ++i) {
            const double mi = m[i], ai = a[i];
            const bool both = std::isfinite(mi) & std::isfinite(ai);
            const double d = mi - ai;
            t.add[i] = both ? d * d : 0.0;
            t.rerun[i] = both ? ai * ai : 0.0;
        }
    }
    c.finite += finite;
    c.flushed += flushed;
    c.newNan += newNan;
    c.newInf += newInf;
    c.ulpsMax = ulpsMax;
    c.top = top;
    c.slowUlps = slow > 0;
}

#if AMPSCOPE_MAP_AVX512
#define AMPSCOPE_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,popcnt")))

AMPSCOPE_AVX512 void blockTermsAvx512(const double* m, const double* r, const double* a, int64_t n, int formatBits,
                                       int minExponent, bool clampExponent, BlockTerms& t, BlockCounts& c) {
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    const __m512d largest = _mm512_set1_pd(std::numeric_limits<double>::max());
    const __m512d infinity = _mm512_set1_pd(std::numeric_limits<double>::infinity());
    const __m512i exponentMask = _mm512_set1_epi64(0x7FF), bias = _mm512_set1_epi64(1023);
    const __m512i lowest = _mm512_set1_epi64(minExponent);
    const __m512i scaleBase = _mm512_set1_epi64(1023 + formatBits - 1);
    const __m512i scaleLow = _mm512_set1_epi64(1), scaleHigh = _mm512_set1_epi64(2046), zeroI = _mm512_setzero_si512();
    int64_t finite = 0, flushed = 0, newNan = 0, newInf = 0;
    __mmask8 slow = 0;
    __m512d ulpsMax = _mm512_set1_pd(c.ulpsMax), top = zero;
    for (int64_t i = 0; i < n; i += 8) {
        const __mmask8 valid = n - i >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (n - i)) - 1u);
        const __m512d mi = _mm512_load_pd(m + i), ri = _mm512_load_pd(r + i);
        const __m512d am = _mm512_abs_pd(mi), ar = _mm512_abs_pd(ri);
        const __mmask8 mf = _mm512_cmp_pd_mask(am, largest, _CMP_LE_OQ) & valid;
        const __mmask8 rf = _mm512_cmp_pd_mask(ar, largest, _CMP_LE_OQ) & valid;
        const __mmask8 both = mf & rf;
        const __mmask8 mNan = _mm512_cmp_pd_mask(mi, mi, _CMP_UNORD_Q) & valid;
        const __mmask8 rNan = _mm512_cmp_pd_mask(ri, ri, _CMP_UNORD_Q);
        const __mmask8 mInf = _mm512_cmp_pd_mask(am, infinity, _CMP_EQ_OQ);
        newNan += _mm_popcnt_u32(mNan & ~rNan);
        newInf += _mm_popcnt_u32(mInf & rf);
        finite += _mm_popcnt_u32(both);
        const __m512d d = _mm512_sub_pd(mi, ri);
        _mm512_store_pd(t.err + i, _mm512_maskz_mul_pd(both, d, d));
        _mm512_store_pd(t.ref + i, _mm512_maskz_mul_pd(both, ri, ri));
        const __mmask8 rNonZero = _mm512_cmp_pd_mask(ri, zero, _CMP_NEQ_UQ);
        const __m512d magnitude0 = _mm512_mask_blend_pd(rNonZero, am, ar);
        const __mmask8 positive = both & _mm512_cmp_pd_mask(magnitude0, zero, _CMP_GT_OQ);
        const __m512d magnitude = _mm512_mask_blend_pd(positive, one, magnitude0);
        const __m512i biased = _mm512_and_si512(_mm512_srli_epi64(_mm512_castpd_si512(magnitude), 52), exponentMask);
        __m512i e = _mm512_sub_epi64(biased, bias);
        if (clampExponent) e = _mm512_max_epi64(e, lowest);
        const __m512i scaleBiased = _mm512_sub_epi64(scaleBase, e);
        slow |= both & (_mm512_cmpeq_epi64_mask(biased, zeroI) | _mm512_cmplt_epi64_mask(scaleBiased, scaleLow) |
                        _mm512_cmpgt_epi64_mask(scaleBiased, scaleHigh));
        const __m512i clamped = _mm512_min_epi64(_mm512_max_epi64(scaleBiased, scaleLow), scaleHigh);
        const __m512d scale = _mm512_castsi512_pd(_mm512_slli_epi64(clamped, 52));
        const __m512d ulps = _mm512_maskz_mul_pd(both, _mm512_abs_pd(d), scale);
        _mm512_store_pd(t.ulps + i, ulps);
        _mm512_store_pd(t.ulpsSq + i, _mm512_mul_pd(ulps, ulps));
        ulpsMax = _mm512_max_pd(ulpsMax, ulps);
        flushed += _mm_popcnt_u32(both & _mm512_cmp_pd_mask(mi, zero, _CMP_EQ_OQ) & rNonZero);
        const __m512d runMagnitude = _mm512_maskz_mov_pd(both, am);
        _mm512_store_pd(t.runMagnitude + i, runMagnitude);
        top = _mm512_max_pd(top, runMagnitude);
        // The values rounded to fp32 (as the scalar cast rounds: to nearest), their slots below.
        _mm256_store_si256(reinterpret_cast<__m256i*>(t.runSlots + i), _mm256_castps_si256(_mm512_cvtpd_ps(mi)));
        _mm256_store_si256(reinterpret_cast<__m256i*>(t.referenceSlots + i),
                           _mm256_castps_si256(_mm512_cvtpd_ps(ri)));
        if (a) {
            const __m512d ai = _mm512_load_pd(a + i);
            const __mmask8 af = _mm512_cmp_pd_mask(_mm512_abs_pd(ai), largest, _CMP_LE_OQ);
            const __mmask8 counted = mf & af;
            const __m512d da = _mm512_sub_pd(mi, ai);
            _mm512_store_pd(t.add + i, _mm512_maskz_mul_pd(counted, da, da));
            _mm512_store_pd(t.rerun + i, _mm512_maskz_mul_pd(counted, ai, ai));
        }
    }
    for (int64_t i = 0; i < n; ++i) t.runSlots[i] = histogram_slot::ofBits(t.runSlots[i]);
    for (int64_t i = 0; i < n; ++i) t.referenceSlots[i] = histogram_slot::ofBits(t.referenceSlots[i]);
    c.finite += finite;
    c.flushed += flushed;
    c.newNan += newNan;
    c.newInf += newInf;
    c.ulpsMax = _mm512_reduce_max_pd(ulpsMax);
    c.top = _mm512_reduce_max_pd(top);
    c.slowUlps = slow != 0;
}

bool hasAvx512() {
    static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    return has;
}
#endif

std::atomic<bool> vectorPassAllowed{true};

void blockTerms(const double* m, const double* r, const double* a, int64_t n, int formatBits, int minExponent,
                bool clampExponent, BlockTerms& t, BlockCounts& c) {
#if AMPSCOPE_MAP_AVX512
    if (vectorPassAllowed.load(std::memory_order_relaxed) && hasAvx512()) return blockTermsAvx512(m, r, a, n, formatBits, minExponent, clampExponent, t, c);
#endif
    blockTermsScalar(m, r, a, n, formatBits, minExponent, clampExponent, t, c);
}

// How many of the block's elements hold the largest run magnitude `top` where the
// reference lies beyond it by more than the format's spacing (saturated).
AMPSCOPE_CPU_CLONES int64_t saturatedAt(const double* runMagnitude, const double* r, int64_t n, double top,
                                        double above) {
    int64_t count = 0;
    const double limit = top * above;
    for (int64_t i = 0; i < n; ++i) count += (runMagnitude[i] == top) & (std::abs(r[i]) > limit);
    return count;
}

// One chunk's sums and both histograms. Saturation is counted against the chunk's
// largest finite run magnitude; merging keeps the counts of the chunks that hold the
// overall largest (the running count of the scalar loop before, which restarted at each
// new largest, counts the same elements).
void sumChunk(const torch::Tensor& mt, const torch::Tensor& rt, const torch::Tensor& at, int64_t begin, int64_t end,
              const MapFormat& format, ErrorSums& s, double& top, double& saturated, SlotCounts& runCounts,
              SlotCounts& referenceCounts) {
    const double above = 1.0 + std::ldexp(2.0, -format.bits);
    const bool rerun = at.defined();
    double errSq = s.errSq, refSq = s.refSq, ulpsSq = s.ulpsSq, addSq = s.addSq, rerunSq = s.rerunSq;
    double chunkTop = top, chunkSaturated = saturated;
    BlockCounts counts;
    counts.ulpsMax = s.ulpsMax;
    alignas(64) double m[kBlock], r[kBlock], a[kBlock];
    BlockTerms t;
    for (int64_t first = begin; first < end; first += kBlock) {
        const int64_t n = std::min(end, first + kBlock) - first;
        widenAny(mt, first, n, m);
        widenAny(rt, first, n, r);
        if (rerun) widenAny(at, first, n, a);
        if (n < kBlock) {
            // The last block's tail: read by the vector loop a whole vector at a time, counted by none.
            std::fill(m + n, m + kBlock, 0.0);
            std::fill(r + n, r + kBlock, 0.0);
            std::fill(a + n, a + kBlock, 0.0);
        }
        const double maxBefore = counts.ulpsMax;
        blockTerms(m, r, rerun ? a : nullptr, n, format.bits, format.minExponent.value_or(0),
                   format.minExponent.has_value(), t, counts);
        if (counts.slowUlps) {
            // inUlps itself for the whole block (rare: subnormal doubles, fp64 extremes).
            double ulpsMax = maxBefore;
            for (int64_t i = 0; i < n; ++i) {
                if (!(std::isfinite(m[i]) && std::isfinite(r[i]))) continue;
                const double magnitude = r[i] != 0.0 ? std::abs(r[i]) : std::abs(m[i]);
                const double ulps = inUlps(std::abs(m[i] - r[i]), magnitude > 0.0 ? magnitude : 1.0, format);
                t.ulps[i] = ulps;
                t.ulpsSq[i] = ulps * ulps;
                ulpsMax = std::max(ulpsMax, ulps);
            }
            counts.ulpsMax = ulpsMax;
        }
        if (counts.top > chunkTop) {
            chunkTop = counts.top;
            chunkSaturated = static_cast<double>(saturatedAt(t.runMagnitude, r, n, chunkTop, above));
        } else if (counts.top == chunkTop && chunkTop > 0.0) {
            chunkSaturated += static_cast<double>(saturatedAt(t.runMagnitude, r, n, chunkTop, above));
        }
        // The sums, in element order (latency-bound: the additions of one sum wait on
        // each other, the sums' chains run side by side).
        if (rerun) {
            for (int64_t i = 0; i < n; ++i) {
                errSq += t.err[i];
                refSq += t.ref[i];
                ulpsSq += t.ulpsSq[i];
                addSq += t.add[i];
                rerunSq += t.rerun[i];
            }
        } else {
            for (int64_t i = 0; i < n; ++i) {
                errSq += t.err[i];
                refSq += t.ref[i];
                ulpsSq += t.ulpsSq[i];
            }
        }
        runCounts.add(t.runSlots, n);
        referenceCounts.add(t.referenceSlots, n);
    }
    s.errSq = errSq;
    s.refSq = refSq;
    s.ulpsSq = ulpsSq;
    s.addSq = addSq;
    s.rerunSq = rerunSq;
    s.ulpsMax = counts.ulpsMax;
    s.finite += static_cast<double>(counts.finite);
    s.flushed += static_cast<double>(counts.flushed);
    s.newNan += static_cast<double>(counts.newNan);
    s.newInf += static_cast<double>(counts.newInf);
    top = chunkTop;
    saturated = chunkSaturated;
}

}  // namespace

ErrorSums sumsOnCpu(const torch::Tensor& runValues, const torch::Tensor& referenceValues, const torch::Tensor& rerun,
                    const MapFormat& format) {
    const auto floating = [](const torch::Tensor& t) {
        return t.scalar_type() == torch::kHalf || t.scalar_type() == torch::kBFloat16 ||
                       t.scalar_type() == torch::kDouble
                   ? t.detach().contiguous()
                   : t.detach().to(torch::kFloat).contiguous();
    };
    const auto mt = floating(runValues), rt = floating(referenceValues);
    const auto at = rerun.defined() ? floating(rerun) : torch::Tensor();
    const int64_t n = mt.numel();
    constexpr int64_t kGrain = int64_t{1} << 16;
    const size_t chunks = static_cast<size_t>(std::max<int64_t>(1, (n + kGrain - 1) / kGrain));
    std::vector<ErrorSums> parts(chunks);
    std::vector<double> tops(chunks, 0.0), saturated(chunks, 0.0);
    std::vector<SlotCounts> runCounts(chunks), referenceCounts(chunks);
    // Each chunk of kGrain elements is one task, so a chunk's sums have one writer.
    at::parallel_for(0, static_cast<int64_t>(chunks), 1, [&](int64_t firstChunk, int64_t lastChunk) {
        for (int64_t c = firstChunk; c < lastChunk; ++c) {
            const size_t k = static_cast<size_t>(c);
            const int64_t chunk = c * kGrain;
            const int64_t stop = std::min(n, chunk + kGrain);
            ErrorSums& s = parts[k];
            s.addSq = s.rerunSq = 0.0;
            sumChunk(mt, rt, at, chunk, stop, format, s, tops[k], saturated[k], runCounts[k], referenceCounts[k]);
        }
    });
    ErrorSums total;
    total.addSq = total.rerunSq = 0.0;
    for (const auto& part : parts) total.add(part);
    // The histograms: the histogram probe's slots (HistogramProbe.h), counted in the same pass.
    for (size_t slot = 0; slot < total.runSlots.size(); ++slot) {
        int64_t run = 0, reference = 0;
        for (size_t k = 0; k < chunks; ++k) {
            run += runCounts[k].count(slot);
            reference += referenceCounts[k].count(slot);
        }
        total.runSlots[slot] = static_cast<double>(run);
        total.referenceSlots[slot] = static_cast<double>(reference);
    }
    const double top = *std::max_element(tops.begin(), tops.end());
    for (size_t k = 0; k < chunks; ++k)
        if (top > 0.0 && tops[k] == top) total.saturated += saturated[k];
    if (!at.defined()) total.addSq = total.rerunSq = std::nan("");
    return total;
}

bool useVectorLoop(bool allowed) {
    vectorPassAllowed.store(allowed);
#if AMPSCOPE_MAP_AVX512
    return allowed && hasAvx512();
#else
    return false;
#endif
}

}  // namespace ampscope::map_pass
