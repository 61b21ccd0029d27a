#pragma once
// Plain (no torch). How far apart two gradient histograms sit on the log2|g| axis: the
// earth mover's distance between their distributions, in binades, so that a gradient 2^16
// times larger (the dynamic loss scaler's 65536) reads as 16. Reports show side by side
// the histograms of the runs that differ most by it.
//
// Contract:
// - The distribution of a histogram: each exponent bin k at position k (bin k holds
//   [2^k, 2^(k+1))), `below` at kMinExponent - 1, `above` at kMaxExponent + 1, and zeros at
//   kMinExponent - 2: below everything, so a gradient flushed to 0 sits as far down as a
//   histogram can say. NaN and Inf have no place on the axis and are left out; each
//   distribution is normalised over what is left.
// - exponentDistance(a, b) = sum over positions of |CDF_a - CDF_b| (1-D earth mover's
//   distance with bins one binade apart): 0 for the same shape wherever the counts, the
//   shift for a shifted histogram. NaN when either has nothing on the axis.
#include "probes/ExponentHistogram.h"

namespace ampscope {

double exponentDistance(const ExponentHistogram& a, const ExponentHistogram& b);

}  // namespace ampscope
