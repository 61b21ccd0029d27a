#include "stats/StudentT.h"

#include <cmath>
#include <limits>

namespace ampscope::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The continued fraction of I_x(a, b) (A&S 26.5.8), without its prefactor, by the modified
// Lentz method: d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)), d_{2m} = m(b-m)x / ((a+2m-1)(a+2m)).
double betaContinuedFraction(double a, double b, double x) {
    constexpr int kMaxTerms = 10000;
    constexpr double kEpsilon = 1e-16;
    constexpr double kTiny = 1e-300;  // stands in for a zero denominator (Lentz)
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::fabs(d) < kTiny) d = kTiny;
    d = 1.0 / d;
    double fraction = d;
    for (int m = 1; m <= kMaxTerms; ++m) {
        const double m2 = 2.0 * m;
        // Even step.
        double term = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + term * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1.0 + term / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        fraction *= d * c;
        // Odd step.
        term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + term * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1.0 + term / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        const double delta = d * c;
        fraction *= delta;
        if (std::fabs(delta - 1.0) < kEpsilon) break;
    }
    return fraction;
}

}  // namespace

double regularizedIncompleteBeta(double a, double b, double x) {
    if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0) || !(x <= 1.0)) return kNaN;
    if (x == 0.0) return 0.0;
    if (x == 1.0) return 1.0;
    // x^a (1-x)^b / B(a, b), in logarithms so large a and b do not overflow.
    const double logFront = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                            b * std::log1p(-x);
    const double front = std::exp(logFront);
    // The fraction converges fast only below the mean-like point (a+1)/(a+b+2); above it,
    // the symmetric form does.
    if (x < (a + 1.0) / (a + b + 2.0)) return front * betaContinuedFraction(a, b, x) / a;
    return 1.0 - front * betaContinuedFraction(b, a, 1.0 - x) / b;
}

double studentTUpperTail(double t, double df) {
    if (std::isnan(t) || !(df > 0.0)) return kNaN;
    if (std::isinf(df)) return 0.5 * std::erfc(t / std::sqrt(2.0));
    if (t == std::numeric_limits<double>::infinity()) return 0.0;
    if (t == -std::numeric_limits<double>::infinity()) return 1.0;
    // The distribution is symmetric: P(T > -|t|) = 1 - P(T > |t|).
    const double x = df / (df + t * t);
    const double halfTail = 0.5 * regularizedIncompleteBeta(0.5 * df, 0.5, x);
    return t >= 0.0 ? halfTail : 1.0 - halfTail;
}

double studentTCdf(double t, double df) {
    if (std::isnan(t) || !(df > 0.0)) return kNaN;
    // The lower tail is the upper tail of -t: computed as a tail, not as 1 - tail.
    return studentTUpperTail(-t, df);
}

double studentTQuantile(double p, double df) {
    if (!(p > 0.0) || !(p < 1.0) || !(df > 0.0)) return kNaN;
    if (p == 0.5) return 0.0;
    // Solve P(T > t) = q for t >= 0, then give the quantile its sign.
    const double q = p > 0.5 ? 1.0 - p : p;
    double low = 0.0, high = 1.0;
    while (studentTUpperTail(high, df) > q) {
        low = high;
        high *= 2.0;
        if (high > 1e300) break;
    }
    for (int i = 0; i < 2000 && high - low > 1e-15 * high; ++i) {
        const double middle = 0.5 * (low + high);
        if (studentTUpperTail(middle, df) > q)
            low = middle;
        else
            high = middle;
    }
    const double t = 0.5 * (low + high);
    return p > 0.5 ? t : -t;
}

}  // namespace ampscope::stats
