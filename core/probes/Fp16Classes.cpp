#include "probes/Fp16Classes.h"

#include <algorithm>
#include <cmath>

namespace ampscope {

double Fp16ClassCounts::fraction(int64_t part) const {
    const int64_t n = total();
    return n > 0 ? static_cast<double>(part) / static_cast<double>(n) : 0.0;
}

Fp16ClassCounts& Fp16ClassCounts::operator+=(const Fp16ClassCounts& other) {
    zero += other.zero;
    flushed += other.flushed;
    subnormal += other.subnormal;
    normal += other.normal;
    overflow += other.overflow;
    nan += other.nan;
    inf += other.inf;
    exact = exact && other.exact;
    return *this;
}

namespace {

// Finite non-zero elements whose scaled exponent lies below `limit` (a log2
// value). Bin e of the scaled values spans [e + shift, e + 1 + shift); the part
// of it below the limit counts, pro rata in log2 (whole bins for integer shifts).
double massBelowScaled(const ExponentHistogram& h, double shift, double limit) {
    double mass = static_cast<double>(h.below);
    for (int e = kMinExponent; e <= kMaxExponent; ++e) {
        const double part = std::clamp(limit - (e + shift), 0.0, 1.0);
        mass += part * static_cast<double>(h.countAt(e));
    }
    return mass;
}

}  // namespace

Fp16ClassCounts estimateFromHistogram(const ExponentHistogram& histogram, double log2Multiplier) {
    // Scaled-exponent limits of the classes: bins below kFlushedAtOrBelowLog2 (-25, not
    // the smallest subnormal's -24: see the header) flush, bins from kOverflowLog2 overflow.
    constexpr double kSubnormalFrom = fp16::kFlushedAtOrBelowLog2;
    constexpr double kNormalFrom = fp16::kSmallestNormalLog2;
    constexpr double kOverflowFrom = fp16::kOverflowLog2;

    Fp16ClassCounts c;
    c.exact = false;
    c.zero = histogram.zero;
    c.nan = histogram.nan;
    c.inf = histogram.posInf + histogram.negInf;
    // Round cumulative masses, then difference them: classes stay non-negative
    // and add up to the finite non-zero count even for fractional shifts.
    const auto below = [&](double limit) {
        return std::llround(massBelowScaled(histogram, log2Multiplier, limit));
    };
    const int64_t flushedUpTo = below(kSubnormalFrom);
    const int64_t subnormalUpTo = below(kNormalFrom);
    const int64_t normalUpTo = below(kOverflowFrom);
    c.flushed = flushedUpTo;
    c.subnormal = subnormalUpTo - flushedUpTo;
    c.normal = normalUpTo - subnormalUpTo;
    c.overflow = histogram.finiteNonZero() - normalUpTo;
    return c;
}

}  // namespace ampscope
