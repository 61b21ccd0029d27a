#pragma once
// The q-quantile as NumPy's default (method "linear") computes it, written out for the
// suites that check a band's quantiles against it: sort, h = q (n - 1), interpolate
// between the neighbours of h. The truth those suites compare with, kept apart from
// core's own quantile code.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace ampscope::test {

inline double numpyQuantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double h = q * (static_cast<double>(v.size()) - 1.0);
    const auto lo = static_cast<std::size_t>(h);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace ampscope::test
