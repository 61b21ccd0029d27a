#pragma once
// Student's t distribution, written from the math rather than taken from a library
// (core links no statistics package): what the seed band's width and its labels'
// p-values are read from.
//
// Method: P(T > t) for t >= 0 is I_x(df/2, 1/2) / 2 with x = df / (df + t^2), the
// regularized incomplete beta function (Abramowitz & Stegun 26.7.1 with 26.5.27). I_x(a, b)
// is evaluated from its continued fraction (A&S 26.5.8), by the modified Lentz method,
// using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) when x > (a + 1) / (a + b + 2) so the
// fraction converges quickly (the way Numerical Recipes, section 6.4, organises it).
// Its prefactor x^a (1-x)^b / (a B(a, b)) comes from std::lgamma. The tail is computed as a
// tail, never as 1 - CDF, so small p-values keep their digits. An infinite df is the
// standard normal (erfc). df need not be an integer: Welch's df is not.
//
// Contract: every function returns NaN for a NaN argument or df <= 0; t may be +-inf.
// No torch, no Qt.

namespace ampscope::stats {

// I_x(a, b) for a, b > 0 and 0 <= x <= 1.
double regularizedIncompleteBeta(double a, double b, double x);

// P(T <= t) for T ~ Student's t with df degrees of freedom.
double studentTCdf(double t, double df);

// P(T > t): the one-sided p-value of an observed t (accurate far in the tail).
double studentTUpperTail(double t, double df);

// The t with P(T <= t) = p, for 0 < p < 1 (found by bisection on the tail: slow next to
// a series inversion but exact to the last bits the tail itself has, and called once per
// band, not per step).
double studentTQuantile(double p, double df);

}  // namespace ampscope::stats
