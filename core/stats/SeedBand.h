#pragma once
// The seed band: the same config trained with N seeds (N >= 2), and whether another run's
// gap from them is more than seed noise.
//
// The band's rule (kSeedBandRule, the words legends and seed-band.txt show): at each step,
// the centre is the mean of the N seeds' values and the band is
//     mean +- t(0.975, N-1) * s * sqrt(1 + 1/N),
// s the sample standard deviation (N-1 in its denominator): the 95% prediction interval
// for one more seed's value, assuming the seeds' values are normal. It is a prediction
// interval and not a confidence interval of the mean because the question is "could this
// one run be another seed?", and a confidence interval narrows as sqrt(1/N) and would call
// almost every run "outside" given enough seeds.
//
// The labels (alpha = kSeedBandAlpha, 0.05):
// - One compared run, one value (its final validation loss or accuracy):
//   labelRunAgainstBand: t = (x - mean) / (s sqrt(1 + 1/N)) is Student's t with N-1 df when
//   x is one more seed; two-sided p = 2 P(T > |t|). "outside" when p < alpha, which is exactly
//   when x lies outside the band drawn (two-sided, so the label never disagrees with the eye).
// - Several seeds of the compared config against the band's seeds: labelSeedsAgainstBand,
//   Welch's t-test (variances not assumed equal: a precision mode may well change the
//   seed-to-seed spread), one-sided in the direction the caller names (a loss "higher",
//   an accuracy "lower": the question is whether the mode is worse, asked before looking):
//   t = (mean_c - mean_b) / sqrt(s_c^2/n_c + s_b^2/n_b), df by Welch-Satterthwaite,
//   p = P(T > t) for Alternative::Greater, P(T < t) for Alternative::Less.
// - Along a run: stepsOutsideBand, the ranges of consecutive band steps where the compared
//   run's smoothed loss is above the band's high edge or below its low edge. Descriptive:
//   each step is a 5% test on its own, so a run that is another seed leaves the band now and
//   then; a long range is what means something.
//
// Contract: non-finite values are left out (a seed whose loss went NaN at a step says
// nothing about the spread there); a quantity with fewer than 2 finite seed values has no
// band (NaN edges, seeds < 2) and its labels are Label::NoBand. The series are matched by
// step number; the band has a point at every step at least 2 seeds have a finite value.
// The caller smooths the losses (the band takes whatever series it is handed).
// No torch, no Qt.
#include <cstdint>
#include <string>
#include <vector>

namespace ampscope::stats {

inline constexpr double kSeedBandAlpha = 0.05;
inline constexpr int kMinimumSeeds = 2;
// The band's rule in words, for a legend or a file's header (plain ASCII: terminals, files).
extern const char* const kSeedBandRule;

// The N values of one quantity: count, mean and sample standard deviation (n - 1).
struct SampleSummary {
    int count = 0;
    double mean = 0.0;
    double sd = 0.0;
};
SampleSummary summarize(const std::vector<double>& values);  // non-finite values left out

// One quantity's band.
struct BandInterval {
    int seeds = 0;
    double centre = 0.0, low = 0.0, high = 0.0;
};
// mean +- t(1 - alpha/2, N-1) * s * sqrt(1 + 1/N); NaN edges below kMinimumSeeds.
BandInterval bandOf(const SampleSummary& seeds, double alpha = kSeedBandAlpha);

struct StepValue {
    int64_t step = 0;
    double value = 0.0;
};
struct StepBand {
    int64_t step = 0;
    BandInterval band;
};
// Each seed run's (smoothed) loss per step -> the band per step, in step order.
std::vector<StepBand> seedBandSeries(const std::vector<std::vector<StepValue>>& seedRuns,
                                     double alpha = kSeedBandAlpha);

enum class Label { Inside, Outside, NoBand };
const char* labelName(Label label);  // "inside", "outside", "no band"

enum class Alternative { Greater, Less };  // the compared side's value above / below the band's

struct GapLabel {
    Label label = Label::NoBand;
    double t = 0.0;
    double df = 0.0;
    double p = 1.0;
};
// One compared run's value against the band's seeds (prediction-interval test, two-sided).
GapLabel labelRunAgainstBand(double value, const SampleSummary& seeds, double alpha = kSeedBandAlpha);
// Several compared seeds against the band's seeds (Welch, one-sided toward `alternative`).
GapLabel labelSeedsAgainstBand(const SampleSummary& compared, const SampleSummary& seeds, Alternative alternative,
                               double alpha = kSeedBandAlpha);
// Welch-Satterthwaite: (v_a + v_b)^2 / (v_a^2/(n_a-1) + v_b^2/(n_b-1)), v = s^2/n.
double welchDegreesOfFreedom(const SampleSummary& a, const SampleSummary& b);

struct StepRange {
    int64_t first = 0, last = 0;  // band steps, inclusive
    bool above = true;            // above the band's high edge (else below its low edge)
};
// Where `run` leaves the band: consecutive band points (in the band's order) outside on the
// same side form one range; a band point the run has no finite value at ends a range.
std::vector<StepRange> stepsOutsideBand(const std::vector<StepBand>& band, const std::vector<StepValue>& run);

}  // namespace ampscope::stats
