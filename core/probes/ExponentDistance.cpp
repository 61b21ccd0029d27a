#include "probes/ExponentDistance.h"

#include <cmath>
#include <limits>
#include <vector>

namespace ampscope {
namespace {

// The histogram's mass on the axis, lowest position first: zero, below, the bins, above.
std::vector<double> massOnAxis(const ExponentHistogram& h) {
    std::vector<double> mass;
    mass.reserve(h.counts.size() + 3);
    mass.push_back(static_cast<double>(h.zero));
    mass.push_back(static_cast<double>(h.below));
    for (const int64_t count : h.counts) mass.push_back(static_cast<double>(count));
    mass.push_back(static_cast<double>(h.above));
    return mass;
}

}  // namespace

double exponentDistance(const ExponentHistogram& a, const ExponentHistogram& b) {
    const std::vector<double> ma = massOnAxis(a), mb = massOnAxis(b);
    double ta = 0.0, tb = 0.0;
    for (const double m : ma) ta += m;
    for (const double m : mb) tb += m;
    if (!(ta > 0.0) || !(tb > 0.0) || ma.size() != mb.size()) return std::numeric_limits<double>::quiet_NaN();
    double ca = 0.0, cb = 0.0, distance = 0.0;
    // Positions one binade apart: zero and below are the two steps under the lowest bin.
    for (std::size_t i = 0; i + 1 < ma.size(); ++i) {
        ca += ma[i] / ta;
        cb += mb[i] / tb;
        distance += std::fabs(ca - cb);
    }
    return distance;
}

}  // namespace ampscope
