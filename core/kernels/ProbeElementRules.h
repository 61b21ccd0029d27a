#pragma once
// Plain C++ (no torch, no CUDA headers) that BOTH g++ and nvcc compile: the
// per-element rules of the gradient probes, written once so that the fused CUDA
// kernel (FusedProbeKernel.cu) and the CPU tests run the very same code.
//
// For one fp32 value (float16 and bfloat16 inputs are widened exactly first):
// - histogramSlot(): its slot in the exponent histogram, in the layout of
//   HistogramProbe.h's histogram_slot (floor(log2|x|) bins kMinExponent..kMaxExponent,
//   then below, above, zero, NaN, +Inf, -Inf), read from the fp32 bit pattern;
// - fp16Class(): its fp16 class (Fp16Classes.h) after the multiplier of an
//   Fp16Plan: zero, flushed (would flush to 0), subnormal, normal, overflow, NaN,
//   +Inf, -Inf. +Inf and -Inf are apart here; Fp16ClassCounts adds them up.
// core/probes takes its histogram and fp16 class layouts from here, and
// test_fused_probe_rules checks the rules against the LibTorch probes.
//
// Functions marked AMPSCOPE_HOST_DEVICE are __host__ __device__ under nvcc and
// plain inline functions under g++. The planner (planFp16) is host-only: it runs
// once per multiplier, before a launch.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "precision/Fp16Limits.h"

#if defined(__CUDACC__)
#define AMPSCOPE_HOST_DEVICE __host__ __device__
#else
#define AMPSCOPE_HOST_DEVICE
#endif

namespace ampscope::probe_rules {

// --- layout --------------------------------------------------------------------------
// Histogram: the one definition of the range and slots; ExponentHistogram.h and
// HistogramProbe.h take theirs from here.
inline constexpr int kMinExponent = -64;
inline constexpr int kMaxExponent = 32;
inline constexpr int kExponentBins = kMaxExponent - kMinExponent + 1;  // 97
inline constexpr int kBelowSlot = kExponentBins;
inline constexpr int kAboveSlot = kExponentBins + 1;
inline constexpr int kZeroSlot = kExponentBins + 2;
inline constexpr int kNanSlot = kExponentBins + 3;
inline constexpr int kPosInfSlot = kExponentBins + 4;
inline constexpr int kNegInfSlot = kExponentBins + 5;
inline constexpr int kHistogramSlots = kExponentBins + 6;  // 103

// fp16 classes of one plan: the one definition of the class slots. The kernel counts
// +Inf and -Inf apart (the last two); the probes' reported slots (Fp16Classifier.h's
// fp16_class_slot, the records' "inf") fold -Inf into +Inf's slot, so they are the
// first kReportedClassCount of these with kClassInf holding both infinities.
inline constexpr int kClassZero = 0;
inline constexpr int kClassFlushed = 1;
inline constexpr int kClassSubnormal = 2;
inline constexpr int kClassNormal = 3;
inline constexpr int kClassOverflow = 4;
inline constexpr int kClassNan = 5;
inline constexpr int kClassPosInf = 6;
inline constexpr int kClassNegInf = 7;
inline constexpr int kClassCount = 8;
inline constexpr int kClassInf = kClassPosInf;
inline constexpr int kReportedClassCount = kClassNegInf;  // 7

// The fused probe's output: the histogram, then kClassCount counters per plan.
inline constexpr int kMaxPlans = 4;
AMPSCOPE_HOST_DEVICE constexpr int fusedSlotCount(int plans) {
    return kHistogramSlots + plans * kClassCount;
}

// --- fp32 bit patterns -----------------------------------------------------------------
inline constexpr uint32_t kMagnitudeMask = 0x7FFFFFFFu;
inline constexpr uint32_t kInfBits = 0x7F800000u;  // magnitudes above it are NaN
inline constexpr uint32_t kLowestBiased = 127 + kMinExponent;   // fp32 biased exponent of the first bin
inline constexpr uint32_t kHighestBiased = 127 + kMaxExponent;  // ... and of the last

AMPSCOPE_HOST_DEVICE inline uint32_t floatBits(float value) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(value);
#else
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
#endif
}

AMPSCOPE_HOST_DEVICE inline float bitsToFloat(uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
#endif
}

// IEEE binary16 bits -> the float of the same value (every half is exact in fp32).
// Written out rather than taken from cuda_fp16.h or c10::Half so that both compilers
// run the same conversion; the test compares it with c10::Half on all 65536 patterns.
AMPSCOPE_HOST_DEVICE inline float halfBitsToFloat(uint16_t half) {
    const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
    const uint32_t exponent = (half >> 10) & 0x1Fu;
    const uint32_t mantissa = half & 0x3FFu;
    if (exponent == 0x1Fu) return bitsToFloat(sign | kInfBits | (mantissa << 13));  // inf, NaN
    if (exponent != 0) return bitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    // Zero or subnormal: mantissa * 2^-24, a product fp32 holds exactly.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
}

// bfloat16 is the top half of an fp32 pattern.
AMPSCOPE_HOST_DEVICE inline float bfloat16BitsToFloat(uint16_t bf16) {
    return bitsToFloat(static_cast<uint32_t>(bf16) << 16);
}

// --- the histogram rule ----------------------------------------------------------------
// Slot of x in the exponent histogram. Biased exponent 0 (fp32 subnormals) lies below
// every bin; the exponent is read from the bits, never from log2(), so a value just
// below a power of two stays in the lower bin.
AMPSCOPE_HOST_DEVICE inline int histogramSlot(uint32_t bits) {
    const uint32_t magnitude = bits & kMagnitudeMask;
    if (magnitude == 0) return kZeroSlot;
    if (magnitude >= kInfBits) {
        if (magnitude > kInfBits) return kNanSlot;
        return (bits >> 31) ? kNegInfSlot : kPosInfSlot;
    }
    const uint32_t biased = magnitude >> 23;
    if (biased < kLowestBiased) return kBelowSlot;
    if (biased > kHighestBiased) return kAboveSlot;
    return static_cast<int>(biased - kLowestBiased);
}

// --- the fp16 rule ---------------------------------------------------------------------
// The limits are precision/Fp16Limits.h's (fp16::kFlushBound, kNormalBound, kOverflowBound).

// How one multiplier m is applied: either the limits move (m a power of two whose
// moved limits are exact floats: exact, no product formed), or each value is
// multiplied in fp32 first, as a scaled fp32 gradient would be.
struct Fp16Plan {
    bool multiply = false;
    float factor = 1.0f;         // used when multiply
    float flushBound = 0.0f;     // |y| <= flushBound    -> flushed (x itself non-zero)
    float normalBound = 0.0f;    // |y| <  normalBound   -> subnormal
    float overflowBound = 0.0f;  // |y| <  overflowBound -> normal, else overflow
};

// Class of x under the plan. Zero, NaN and +-Inf are decided on x itself; a
// non-zero x whose fp32 product underflows counts as flushed, one whose product
// overflows fp32 as overflow.
AMPSCOPE_HOST_DEVICE inline int fp16Class(float x, const Fp16Plan& plan) {
    const uint32_t bits = floatBits(x);
    const uint32_t magnitude = bits & kMagnitudeMask;
    if (magnitude == 0) return kClassZero;
    if (magnitude > kInfBits) return kClassNan;
    if (magnitude == kInfBits) return (bits >> 31) ? kClassNegInf : kClassPosInf;
    // One fp32 multiply, round to nearest even as on the CPU (the kernels are built
    // without --use_fast_math, so subnormal products are kept, not flushed).
    const float y = plan.multiply ? x * plan.factor : x;
    const uint32_t scaled = floatBits(y) & kMagnitudeMask;
    if (scaled <= floatBits(plan.flushBound)) return kClassFlushed;
    if (scaled < floatBits(plan.normalBound)) return kClassSubnormal;
    if (scaled < floatBits(plan.overflowBound)) return kClassNormal;
    return kClassOverflow;
}

// Host only: the plan for a multiplier (finite and > 0; std::invalid_argument
// otherwise, naming it).
inline Fp16Plan planFp16(double multiplier) {
    if (!std::isfinite(multiplier) || !(multiplier > 0.0))
        throw std::invalid_argument("fp16 classification: multiplier must be finite and > 0, got " +
                                    std::to_string(multiplier));
    int exponent = 0;
    const bool powerOfTwo = std::frexp(multiplier, &exponent) == 0.5;
    const double flush = fp16::kFlushBound / multiplier;
    const double normal = fp16::kNormalBound / multiplier;
    const double overflow = fp16::kOverflowBound / multiplier;
    const auto exactFloat = [](double v) {
        const float f = static_cast<float>(v);
        return std::isfinite(f) && f > 0.0f && static_cast<double>(f) == v;
    };
    Fp16Plan p;
    // A multiplier beyond float's range (2 x a scale of 2^127 is 2^128, the what-if
    // "one more growth") cannot be applied in fp32. Classify the exact product instead:
    // the moved limits rounded to floats, down for "<=" and up for "<", compare every
    // float exactly as the real limits would.
    if (powerOfTwo && !std::isfinite(static_cast<float>(multiplier))) {
        const auto floorFloat = [](double v) {
            float f = static_cast<float>(v);
            if (static_cast<double>(f) > v) f = std::nextafter(f, 0.0f);
            return f;
        };
        const auto ceilFloat = [](double v) {
            float f = static_cast<float>(v);
            if (static_cast<double>(f) < v) f = std::nextafter(f, INFINITY);
            return f;
        };
        p.flushBound = floorFloat(flush);
        p.normalBound = ceilFloat(normal);
        p.overflowBound = ceilFloat(overflow);
        return p;
    }
    // Moving the limits equals multiplying only when the moved limits are exact
    // floats (fp32 overflow/underflow of the product lands in the same class either way).
    if (powerOfTwo && exactFloat(flush) && exactFloat(normal) && exactFloat(overflow)) {
        p.flushBound = static_cast<float>(flush);
        p.normalBound = static_cast<float>(normal);
        p.overflowBound = static_cast<float>(overflow);
        return p;
    }
    p.multiply = true;
    p.factor = static_cast<float>(multiplier);
    if (!std::isfinite(p.factor) || p.factor == 0.0f)
        throw std::invalid_argument("fp16 classification: multiplier " +
                                    std::to_string(multiplier) + " is outside the fp32 range");
    p.flushBound = static_cast<float>(fp16::kFlushBound);
    p.normalBound = static_cast<float>(fp16::kNormalBound);
    p.overflowBound = static_cast<float>(fp16::kOverflowBound);
    return p;
}

}  // namespace ampscope::probe_rules
