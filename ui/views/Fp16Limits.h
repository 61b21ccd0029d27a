#pragma once
// Where fp16 loses a value, in log2|x| units, as the probe views draw it. Round to
// nearest (x.to(float16)) decides, not the round numbers one expects (see
// core/probes/Fp16Classes.h for the exact bounds):
// - |x| <= 2^-25 rounds to 0: exponent bins <= -26 flush whole; bin -25, [2^-25, 2^-24),
//   rounds UP to 2^-24 (the smallest subnormal) except the tie 2^-25 itself;
// - below 2^-14 (the smallest normal) a value keeps fewer than 10 mantissa bits;
// - |x| >= 65520 rounds to inf: bins >= 16 overflow whole, plus the top 1/2048 of bin 15.
namespace ampscope::ui::fp16_log2 {

inline constexpr double kFlushedAtOrBelow = -25.0;  // |x| <= 2^-25 becomes 0
inline constexpr double kSmallestSubnormal = -24.0;
inline constexpr double kSmallestNormal = -14.0;
inline constexpr double kOverflow = 16.0;  // 2^16 and up (strictly: from 65520) become inf

}  // namespace ampscope::ui::fp16_log2
