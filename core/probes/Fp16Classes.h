#pragma once
// Plain (no torch). How the elements of a tensor fare when rounded to IEEE
// binary16 (round to nearest, ties to even, as x.to(kHalf) does). The exact fp16
// limits that decide it are precision/Fp16Limits.h (fp16::kFlushBound etc.).
//
// The classes partition the elements (they add up to total()):
//   zero       exactly 0 (either sign) before rounding
//   flushed    non-zero before, 0 after rounding      0 < |x| <= 2^-25
//   subnormal  rounds to a non-zero subnormal r,      2^-25 < |x| < 2^-14 - 2^-25
//              |r| < 2^-14
//   normal     rounds to a finite normal              2^-14 - 2^-25 <= |x| < 65520
//   overflow   finite before, +-inf after rounding    65520 <= |x|
//   nan, inf   already NaN / +-inf before rounding
// Two limits are not the round numbers one expects: 2^-25 itself is a tie
// between 0 and the smallest subnormal 2^-24 and goes to 0 (even), while
// everything in (2^-25, 2^-24) rounds UP to 2^-24 and survives; and values
// in [2^-14 - 2^-25, 2^-14) round up to the smallest normal 2^-14.
//
// estimateFromHistogram() gives the same classes from an ExponentHistogram
// when no fp32 value is in hand (real fp16 runs): see its contract below.
#include <cstdint>

#include "precision/Fp16Limits.h"
#include "probes/ExponentHistogram.h"

namespace ampscope {

struct Fp16ClassCounts {
    int64_t zero = 0;
    int64_t flushed = 0;
    int64_t subnormal = 0;
    int64_t normal = 0;
    int64_t overflow = 0;
    int64_t nan = 0;
    int64_t inf = 0;
    // True when counted from the fp32 values themselves; false for an
    // estimate from an exponent histogram.
    bool exact = true;

    int64_t total() const { return zero + flushed + subnormal + normal + overflow + nan + inf; }
    // Finite non-zero elements before rounding: the ones that can flush.
    int64_t nonZeroFinite() const { return flushed + subnormal + normal + overflow; }
    // part / total(), 0 for an empty tensor.
    double fraction(int64_t part) const;
    double flushedFraction() const { return fraction(flushed); }
    double subnormalFraction() const { return fraction(subnormal); }
    double overflowFraction() const { return fraction(overflow); }
    double nonFiniteFraction() const { return fraction(nan + inf); }

    Fp16ClassCounts& operator+=(const Fp16ClassCounts& other);
    bool operator==(const Fp16ClassCounts& other) const = default;
};

// The classes of x * 2^log2Multiplier estimated from the histogram of x
// (exact = false). For an integer log2Multiplier (every loss scale a dynamic
// scaler produces) each exponent bin e goes whole to the class of its shifted
// exponent e' = e + log2Multiplier:
//   e' <= -26 (and `below`)  flushed     exact: all of [2^-26, 2^-25) rounds to 0
//   -25 <= e' <= -15         subnormal   NOT "below 2^-24 flushes": the bin
//                                        [2^-25, 2^-24) rounds up to 2^-24 except
//                                        the tie 2^-25 itself, which flushes
//   -14 <= e' <= 15          normal
//   e' >= 16 (and `above`)   overflow
// so the estimate is off only by the elements in three slivers: exactly
// +-2^-25 (counted subnormal, really flushed), [2^-14 - 2^-25, 2^-14) (counted
// subnormal, really normal: 1/2048 of that bin's range) and [65520, 65536)
// (counted normal, really overflow: 1/2048 of that bin's range).
// A fractional log2Multiplier (a static scale such as 1000) makes bins
// straddle the limits; a straddling bin is split assuming its values are
// spread evenly in log2, and the cumulative counts are rounded so the classes
// still add up to total().
// The `below`/`above` bins are counted flushed/overflow, which is exact for
// log2Multiplier in [-17, 39]. zero, nan and inf are exact. A scaled value
// that leaves the fp32 range would be flushed/overflowed by the fp32 multiply
// too, so it lands in the same class.
Fp16ClassCounts estimateFromHistogram(const ExponentHistogram& histogram,
                                      double log2Multiplier = 0.0);

}  // namespace ampscope
