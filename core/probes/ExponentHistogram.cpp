#include "probes/ExponentHistogram.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ampscope {

int64_t ExponentHistogram::total() const {
    return finiteNonZero() + zero + nan + posInf + negInf;
}

int64_t ExponentHistogram::finiteNonZero() const {
    int64_t sum = below + above;
    for (int64_t c : counts) sum += c;
    return sum;
}

int64_t ExponentHistogram::countAt(int exponent) const {
    if (exponent < kMinExponent || exponent > kMaxExponent) return 0;
    return counts.at(static_cast<size_t>(exponent - kMinExponent));
}

namespace {

void requireSplittable(int log2Threshold) {
    if (log2Threshold < kMinExponent || log2Threshold > kMaxExponent + 1)
        throw std::out_of_range("exponent histogram: threshold 2^" + std::to_string(log2Threshold) +
                                " lies inside the below/above bin, which cannot be split");
}

}  // namespace

int64_t ExponentHistogram::massBelowExponent(int log2Threshold) const {
    requireSplittable(log2Threshold);
    int64_t sum = below;
    for (int e = kMinExponent; e < log2Threshold; ++e) sum += countAt(e);
    return sum;
}

int64_t ExponentHistogram::massAtOrAboveExponent(int log2Threshold) const {
    requireSplittable(log2Threshold);
    int64_t sum = above;
    for (int e = log2Threshold; e <= kMaxExponent; ++e) sum += countAt(e);
    return sum;
}

int64_t ExponentHistogram::massBelow(double threshold) const {
    return massBelowExponent(exactLog2(threshold));
}

int64_t ExponentHistogram::massAtOrAbove(double threshold) const {
    return massAtOrAboveExponent(exactLog2(threshold));
}

ExponentHistogram& ExponentHistogram::operator+=(const ExponentHistogram& other) {
    counts.resize(kExponentBins, 0);
    for (size_t i = 0; i < counts.size() && i < other.counts.size(); ++i)
        counts[i] += other.counts[i];
    below += other.below;
    above += other.above;
    zero += other.zero;
    nan += other.nan;
    posInf += other.posInf;
    negInf += other.negInf;
    return *this;
}

int exactLog2(double threshold) {
    if (!(threshold > 0.0) || !std::isfinite(threshold))
        throw std::invalid_argument("not a positive finite power of two: " +
                                    std::to_string(threshold));
    int exponent = 0;
    const double mantissa = std::frexp(threshold, &exponent);  // threshold = mantissa * 2^exponent
    if (mantissa != 0.5)
        throw std::invalid_argument("not a power of two: " + std::to_string(threshold));
    return exponent - 1;
}

}  // namespace ampscope
