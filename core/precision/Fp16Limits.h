#pragma once
// The limits of IEEE 754 binary16 (fp16), defined once for the whole program: the probes
// that classify values (core/probes/Fp16Classes.h), the per-element rules that the CPU and
// the CUDA kernel share (core/kernels/ProbeElementRules.h) and the views that draw the
// limits as bands and lines (ui/).
//
// Plain constexpr C++ and nothing else: nvcc compiles this header into the CUDA probe
// kernel, so it may include nothing (no torch, no std::string).
//
// fp16 has 5 exponent bits (normal exponents -14..15) and 10 mantissa bits. Rounding an
// fp32 value to fp16 (round to nearest, ties to even, as x.to(torch.float16) does) moves
// the edges between zero, subnormal, normal and inf off the round numbers by half a unit
// in the last place:
//   |x| <= 2^-25                  rounds to 0 (2^-25 is the tie between 0 and 2^-24, and
//                                 goes to the even one, 0)
//   2^-25 < |x| < 2^-14 - 2^-25   rounds to a non-zero subnormal (so all of (2^-25, 2^-24)
//                                 rounds UP to the smallest subnormal 2^-24)
//   2^-14 - 2^-25 <= |x| < 65520  rounds to a normal number (the top of the subnormal
//                                 range rounds up to 2^-14)
//   65520 <= |x|                  rounds to inf (65520 is the tie between the largest
//                                 finite 65504 and the next step 65536, which is odd)
namespace ampscope::fp16 {

// --- in values ---------------------------------------------------------------------------
inline constexpr double kMax = 65504.0;                    // largest finite: (2 - 2^-10) * 2^15
inline constexpr double kOverflowBound = 65520.0;          // |x| >= this rounds to inf
inline constexpr double kMinNormal = 0x1p-14;              // 6.1e-5
inline constexpr double kNormalBound = 0x1p-14 - 0x1p-25;  // |x| >= this rounds to a normal
inline constexpr double kMinSubnormal = 0x1p-24;           // 6.0e-8
inline constexpr double kFlushBound = 0x1p-25;             // |x| <= this rounds to 0

// --- in log2|x| units, as the views draw them (bin k of an exponent histogram holds
// [2^k, 2^(k+1))) ---------------------------------------------------------------------------
// Bins <= -26 flush whole; bin -25 rounds up to 2^-24 except the tie 2^-25 itself.
inline constexpr double kFlushedAtOrBelowLog2 = -25.0;
inline constexpr double kSmallestSubnormalLog2 = -24.0;
// Below 2^-14 a value keeps fewer than 10 mantissa bits.
inline constexpr double kSmallestNormalLog2 = -14.0;
// Bins >= 16 overflow whole (2^16 > 65520), plus the top 1/2048 of bin 15.
inline constexpr double kOverflowLog2 = 16.0;

// The values above follow from the format; these checks say how, so that an edit to one
// cannot leave the others behind.
static_assert(kMax == (2.0 - 0x1p-10) * 0x1p15, "largest finite: all mantissa bits at 2^15");
static_assert(kOverflowBound == kMax + 0.5 * 0x1p5, "half a ulp (2^5 at 2^15) above the largest");
static_assert(kFlushBound == 0.5 * kMinSubnormal, "half the smallest subnormal");
static_assert(kNormalBound == kMinNormal - kFlushBound, "half a subnormal ulp below 2^-14");
static_assert(kMinSubnormal == 0x1p-24 && kSmallestSubnormalLog2 == -24.0, "2^-24");
static_assert(kMinNormal == 0x1p-14 && kSmallestNormalLog2 == -14.0, "2^-14");
static_assert(kFlushBound == 0x1p-25 && kFlushedAtOrBelowLog2 == -25.0, "2^-25");
static_assert(kOverflowBound < 0x1p16 && kOverflowBound > 0x1p15 && kOverflowLog2 == 16.0,
              "the overflow bound lies in bin 15; bin 16 and up overflow whole");

}  // namespace ampscope::fp16
