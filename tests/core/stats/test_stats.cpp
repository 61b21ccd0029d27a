// core/stats: Student's t distribution and the seed band, checked against statistics
// rather than against the code's own output: printed t tables, closed forms (df = 1 is the
// Cauchy distribution, df = 2 has one too, df -> infinity is the normal), values worked
// out by hand, and, for the labels, the rate at which they call a run "outside" when it
// really is one more seed (alpha, within the sampling error of that many trials).
//
// Reference values marked "mpmath" were computed with mpmath's betainc (30 digits), an
// implementation independent of this one, by the formulas named next to them.
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <random>

#include "ExactCompare.h"
#include "stats/SeedBand.h"
#include "stats/StudentT.h"

using namespace ampscope::stats;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kTrials = 4000;

// Within `tolerance` (absolute), with both numbers in the message when not.
bool near(double actual, double expected, double tolerance) { return std::fabs(actual - expected) <= tolerance; }
#define VERIFY_NEAR(actual, expected, tolerance)                                                      \
    QVERIFY2(near((actual), (expected), (tolerance)),                                                 \
             qPrintable(QString("%1 = %2, expected %3 +- %4")                                          \
                            .arg(#actual)                                                             \
                            .arg(actual, 0, 'g', 15)                                                  \
                            .arg(expected, 0, 'g', 15)                                                \
                            .arg(tolerance)))

// The share of kTrials Bernoulli(alpha) draws is alpha within 3 binomial standard errors.
void verifyRate(int hits, double alpha) {
    const double share = static_cast<double>(hits) / kTrials;
    const double sigma = std::sqrt(alpha * (1.0 - alpha) / kTrials);
    QVERIFY2(std::fabs(share - alpha) <= 3.0 * sigma,
             qPrintable(QString("share outside %1 (%2 of %3), expected %4 +- %5")
                            .arg(share)
                            .arg(hits)
                            .arg(kTrials)
                            .arg(alpha)
                            .arg(3.0 * sigma)));
}

std::vector<double> draw(std::mt19937& random, int count, double mean, double sd) {
    std::normal_distribution<double> normal(mean, sd);
    std::vector<double> values(static_cast<std::size_t>(count));
    for (double& v : values) v = normal(random);
    return values;
}

}  // namespace

class TestStats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b: the integrals done by hand.
    void incompleteBetaClosedForms() {
        for (const double x : {0.0, 0.01, 0.3, 0.5, 0.77, 0.999, 1.0}) {
            VERIFY_NEAR(regularizedIncompleteBeta(1.0, 1.0, x), x, 1e-14);
            VERIFY_NEAR(regularizedIncompleteBeta(3.5, 1.0, x), std::pow(x, 3.5), 1e-14);
            VERIFY_NEAR(regularizedIncompleteBeta(1.0, 2.5, x), 1.0 - std::pow(1.0 - x, 2.5), 1e-14);
        }
        // The end points are exact by the definition I_x = B(x; a, b) / B(a, b): the integral
        // up to 0 is empty and the one up to 1 is B(a, b) itself, for every a and b.
        for (const double a : {0.5, 1.0, 3.5, 40.0})
            for (const double b : {0.5, 2.5, 300.0}) {
                QCOMPARE_BITS(regularizedIncompleteBeta(a, b, 0.0), 0.0);
                QCOMPARE_BITS(regularizedIncompleteBeta(a, b, 1.0), 1.0);
            }
        QVERIFY(std::isnan(regularizedIncompleteBeta(0.0, 1.0, 0.5)));
        QVERIFY(std::isnan(regularizedIncompleteBeta(1.0, 1.0, 1.5)));
    }

    // One-sided p = P(T > t). The printed tables give t(0.95, 10) = 1.812 and
    // t(0.975, 10) = 2.228 to three decimals, so p is 0.05 and 0.025 to within the
    // rounding's effect (density ~0.07 times 0.0005); the mpmath values hold to 1e-12.
    void upperTailMatchesTables_data() {
        QTest::addColumn<double>("t");
        QTest::addColumn<double>("df");
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("table t(0.95,10)") << 1.812 << 10.0 << 0.05 << 1e-4;
        QTest::newRow("table t(0.975,10)") << 2.228 << 10.0 << 0.025 << 1e-4;
        QTest::newRow("t=2 df=10") << 2.0 << 10.0 << 0.0366940173854 << 1e-12;
        QTest::newRow("t=1.812 df=10") << 1.812 << 10.0 << 0.0500376310329 << 1e-12;
        QTest::newRow("t=2.228 df=10") << 2.228 << 10.0 << 0.0250058859086 << 1e-12;
        QTest::newRow("t=0.5 df=3") << 0.5 << 3.0 << 0.325723982424 << 1e-12;
        QTest::newRow("t=4 df=4.5 (Welch-like)") << 4.0 << 4.5 << 0.00638224473281 << 1e-12;
        QTest::newRow("t=30 df=5 far tail") << 30.0 << 5.0 << 3.85932431024803e-7 << 1e-18;
        QTest::newRow("t=-2 df=10") << -2.0 << 10.0 << 0.96330598261463 << 1e-12;
        QTest::newRow("t=0") << 0.0 << 7.0 << 0.5 << 1e-15;
    }
    void upperTailMatchesTables() {
        QFETCH(double, t);
        QFETCH(double, df);
        QFETCH(double, p);
        QFETCH(double, tolerance);
        VERIFY_NEAR(studentTUpperTail(t, df), p, tolerance);
        VERIFY_NEAR(studentTCdf(-t, df), p, tolerance);  // symmetry
    }

    // df = 1 is the Cauchy distribution: P(T > t) = 1/2 - atan(t)/pi. df = 2 integrates by
    // hand to P(T > t) = 1/2 - t / (2 sqrt(2 + t^2)).
    void smallDfClosedForms() {
        for (const double t : {-50.0, -3.0, -1.0, -0.2, 0.0, 0.4, 1.0, 2.5, 12.7, 1000.0}) {
            VERIFY_NEAR(studentTUpperTail(t, 1.0), 0.5 - std::atan(t) / kPi, 1e-13);
            VERIFY_NEAR(studentTCdf(t, 1.0), 0.5 + std::atan(t) / kPi, 1e-13);
            VERIFY_NEAR(studentTUpperTail(t, 2.0), 0.5 - t / (2.0 * std::sqrt(2.0 + t * t)), 1e-13);
        }
        QCOMPARE_BITS(studentTUpperTail(INFINITY, 3.0), 0.0);
        QCOMPARE_BITS(studentTUpperTail(-INFINITY, 3.0), 1.0);
        QVERIFY(std::isnan(studentTUpperTail(1.0, 0.0)));
        QVERIFY(std::isnan(studentTUpperTail(NAN, 3.0)));
    }

    // As df grows, t tends to the standard normal: P(T > t) - Q(t) is O(1/df).
    void largeDfIsNormal() {
        for (const double t : {-2.0, 0.5, 1.0, 1.959964, 3.0}) {
            const double normal = 0.5 * std::erfc(t / std::sqrt(2.0));
            VERIFY_NEAR(studentTUpperTail(t, 1e7), normal, 1e-6);
            VERIFY_NEAR(studentTUpperTail(t, INFINITY), normal, 1e-15);
        }
        VERIFY_NEAR(studentTUpperTail(1.959964, INFINITY), 0.025, 1e-7);  // the normal table's 1.96
    }

    // Quantiles: the printed table (3 decimals), mpmath (12 digits), and Cauchy's
    // tan(pi (p - 1/2)).
    void quantilesMatchTables() {
        VERIFY_NEAR(studentTQuantile(0.975, 10.0), 2.22813885198627, 1e-10);
        VERIFY_NEAR(studentTQuantile(0.95, 10.0), 1.81246112281168, 1e-10);
        VERIFY_NEAR(studentTQuantile(0.975, 4.0), 2.77644510519779, 1e-10);
        VERIFY_NEAR(studentTQuantile(0.975, 2.0), 4.30265272974946, 1e-10);
        VERIFY_NEAR(studentTQuantile(0.995, 30.0), 2.74999565356722, 1e-10);
        VERIFY_NEAR(studentTQuantile(0.975, 10.0), 2.228, 0.0005);
        VERIFY_NEAR(studentTQuantile(0.025, 10.0), -2.22813885198627, 1e-10);
        for (const double p : {0.6, 0.9, 0.975, 0.999})
            VERIFY_NEAR(studentTQuantile(p, 1.0), std::tan(kPi * (p - 0.5)), 1e-9 * std::tan(kPi * (p - 0.5)));
        QCOMPARE_BITS(studentTQuantile(0.5, 3.0), 0.0);
        QVERIFY(std::isnan(studentTQuantile(1.0, 3.0)));
    }

    // Seeds 1, 2, 3, 4, 5: mean 3, s^2 = (4+1+0+1+4)/4 = 2.5, so s sqrt(1 + 1/5) = sqrt(3),
    // and the half width is t(0.975, 4) sqrt(3) = 2.776445105 * 1.732050808 = 4.808943987.
    void bandByHand() {
        const SampleSummary s = summarize({1.0, 2.0, 3.0, NAN, 4.0, 5.0, INFINITY});
        QCOMPARE(s.count, 5);
        VERIFY_NEAR(s.mean, 3.0, 1e-15);
        VERIFY_NEAR(s.sd, std::sqrt(2.5), 1e-15);
        const BandInterval band = bandOf(s);
        QCOMPARE(band.seeds, 5);
        VERIFY_NEAR(band.centre, 3.0, 1e-15);
        VERIFY_NEAR(band.low, 3.0 - 4.80894398662849, 1e-10);
        VERIFY_NEAR(band.high, 3.0 + 4.80894398662849, 1e-10);
        // One seed has no spread to speak of: no band.
        const BandInterval one = bandOf(summarize({0.4}));
        QCOMPARE(one.seeds, 1);
        QVERIFY(std::isnan(one.low) && std::isnan(one.high));
        QCOMPARE(labelRunAgainstBand(0.9, summarize({0.4})).label, Label::NoBand);
    }

    // One run against seeds 1..5: x = 8 gives t = (8 - 3) / sqrt(3) = 2.886751346 on 4 df,
    // two-sided p = 2 P(T4 > 2.886751346) = 0.0447085872797 (mpmath): outside. The label
    // is the band: just inside its edge is inside, just past it outside, on either side.
    void runAgainstBandByHand() {
        const SampleSummary seeds = summarize({1.0, 2.0, 3.0, 4.0, 5.0});
        const GapLabel gap = labelRunAgainstBand(8.0, seeds);
        VERIFY_NEAR(gap.t, 5.0 / std::sqrt(3.0), 1e-14);
        QCOMPARE_BITS(gap.df, 4.0);
        VERIFY_NEAR(gap.p, 0.0447085872796806, 1e-12);
        QCOMPARE(gap.label, Label::Outside);
        const BandInterval band = bandOf(seeds);
        QCOMPARE(labelRunAgainstBand(band.high - 1e-9, seeds).label, Label::Inside);
        QCOMPARE(labelRunAgainstBand(band.high + 1e-9, seeds).label, Label::Outside);
        QCOMPARE(labelRunAgainstBand(band.low + 1e-9, seeds).label, Label::Inside);
        QCOMPARE(labelRunAgainstBand(band.low - 1e-9, seeds).label, Label::Outside);
        VERIFY_NEAR(labelRunAgainstBand(band.high, seeds).p, 0.05, 1e-10);
    }

    // Welch by hand. Band seeds A = 0.52 0.55 0.50 0.53 0.54: mean 0.528, s^2 = 0.00037;
    // compared seeds B = 0.58 0.61 0.57: mean 0.586667, s^2 = 0.000433333.
    // v_A = 0.00037/5 = 0.000074, v_B = 0.000433333/3 = 0.000144444, v_A + v_B = 0.000218444;
    // t = 0.0586667 / sqrt(0.000218444) = 3.969364;
    // df = 0.000218444^2 / (0.000074^2/4 + 0.000144444^2/2) = 4.77180e-8 / 1.18011e-8 = 4.043520;
    // one-sided p (B higher) = P(T > 3.969364) on 4.04352 df = 0.00810092626 (mpmath).
    void welchByHand() {
        const SampleSummary a = summarize({0.52, 0.55, 0.50, 0.53, 0.54});
        const SampleSummary b = summarize({0.58, 0.61, 0.57});
        VERIFY_NEAR(welchDegreesOfFreedom(b, a), 4.04351969737072, 1e-9);
        VERIFY_NEAR(welchDegreesOfFreedom(a, b), 4.04351969737072, 1e-9);
        const GapLabel higher = labelSeedsAgainstBand(b, a, Alternative::Greater);
        VERIFY_NEAR(higher.t, 3.96936385841462, 1e-9);
        VERIFY_NEAR(higher.df, 4.04351969737072, 1e-9);
        VERIFY_NEAR(higher.p, 0.00810092626217212, 1e-11);
        QCOMPARE(higher.label, Label::Outside);
        // Asked the other way (is B lower?), the same data say no.
        const GapLabel lower = labelSeedsAgainstBand(b, a, Alternative::Less);
        VERIFY_NEAR(lower.p, 1.0 - 0.00810092626217212, 1e-11);
        QCOMPARE(lower.label, Label::Inside);
        QCOMPARE(labelSeedsAgainstBand(summarize({0.6}), a, Alternative::Greater).label, Label::NoBand);
    }

    // A run that is one more seed is outside 5% of the time, whatever the mean and spread;
    // seeded, so the counts are the same on every machine.
    void oneRunNullRateIsAlpha() {
        std::mt19937 random(20261129);
        int outside = 0;
        for (int trial = 0; trial < kTrials; ++trial) {
            const SampleSummary seeds = summarize(draw(random, 5, 0.7, 0.03));
            if (labelRunAgainstBand(draw(random, 1, 0.7, 0.03)[0], seeds).label == Label::Outside) ++outside;
        }
        verifyRate(outside, kSeedBandAlpha);
    }

    // Three more seeds against five, asked in either direction: outside 5% of the time.
    void welchNullRateIsAlpha() {
        for (const Alternative alternative : {Alternative::Greater, Alternative::Less}) {
            std::mt19937 random(7);
            int outside = 0;
            for (int trial = 0; trial < kTrials; ++trial) {
                const SampleSummary seeds = summarize(draw(random, 5, 2.3, 0.1));
                const SampleSummary compared = summarize(draw(random, 3, 2.3, 0.1));
                if (labelSeedsAgainstBand(compared, seeds, alternative).label == Label::Outside) ++outside;
            }
            verifyRate(outside, kSeedBandAlpha);
        }
    }

    // A real gap: one run moved by two band widths (about 12 sigma for five seeds) is
    // outside nearly always; three seeds moved by one band width are outside in the
    // direction asked nearly always, and never in the other.
    void realGapsAreOutside() {
        std::mt19937 random(11);
        const double sigma = 0.05;
        const double bandWidth = 2.0 * studentTQuantile(0.975, 4.0) * sigma * std::sqrt(1.2);
        int runOutside = 0, higherOutside = 0, lowerOutside = 0;
        for (int trial = 0; trial < kTrials; ++trial) {
            const SampleSummary seeds = summarize(draw(random, 5, 1.0, sigma));
            if (labelRunAgainstBand(draw(random, 1, 1.0 + 2.0 * bandWidth, sigma)[0], seeds).label == Label::Outside)
                ++runOutside;
            const SampleSummary compared = summarize(draw(random, 3, 1.0 + bandWidth, sigma));
            if (labelSeedsAgainstBand(compared, seeds, Alternative::Greater).label == Label::Outside) ++higherOutside;
            if (labelSeedsAgainstBand(compared, seeds, Alternative::Less).label == Label::Outside) ++lowerOutside;
        }
        QVERIFY2(runOutside >= kTrials * 0.99, qPrintable(QString::number(runOutside)));
        QVERIFY2(higherOutside >= kTrials * 0.99, qPrintable(QString::number(higherOutside)));
        QCOMPARE(lowerOutside, 0);
    }

    // Per step: a run that is one more seed is outside the band at 5% of its steps (steps
    // drawn independently here, so kTrials steps are kTrials trials); a stretch moved by
    // three band widths is one range on its side.
    void bandSeriesCoverageAndRanges() {
        std::mt19937 random(3);
        const int seedCount = 4;
        std::vector<std::vector<StepValue>> seeds(seedCount);
        std::vector<StepValue> run;
        for (int64_t step = 1; step <= kTrials; ++step) {
            for (auto& seed : seeds) seed.push_back({step, draw(random, 1, 0.5, 0.02)[0]});
            run.push_back({step, draw(random, 1, 0.5, 0.02)[0]});
        }
        const std::vector<StepBand> band = seedBandSeries(seeds);
        QCOMPARE(band.size(), std::size_t(kTrials));
        QCOMPARE(band.front().band.seeds, seedCount);
        int outside = 0;
        for (const StepRange& range : stepsOutsideBand(band, run)) outside += int(range.last - range.first + 1);
        verifyRate(outside, kSeedBandAlpha);

        // Steps 101..250 moved up and 400..420 moved down by three band widths (24 sigma),
        // every other step on the band's centre.
        std::vector<StepValue> moved;
        for (const StepBand& point : band) {
            const double width = point.band.high - point.band.low;
            double value = point.band.centre;
            if (point.step >= 101 && point.step <= 250) value += 3.0 * width;
            if (point.step >= 400 && point.step <= 420) value -= 3.0 * width;
            moved.push_back({point.step, value});
        }
        const std::vector<StepRange> ranges = stepsOutsideBand(band, moved);
        QCOMPARE(ranges.size(), std::size_t(2));
        QCOMPARE(ranges[0].first, int64_t(101));
        QCOMPARE(ranges[0].last, int64_t(250));
        QVERIFY(ranges[0].above);
        QCOMPARE(ranges[1].first, int64_t(400));
        QCOMPARE(ranges[1].last, int64_t(420));
        QVERIFY(!ranges[1].above);
    }

    // Hand-made: a band from 0 to 1 at steps 1..6. The run is above at 2 and 3, has no value
    // at 4 (a NaN), above at 5, below at 6: three ranges, the gap splitting the first two.
    // A step only one seed reached has no band point.
    void rangesByHand() {
        const std::vector<std::vector<StepValue>> seeds = {
            {{1, 0.4}, {2, 0.4}, {3, 0.4}, {4, 0.4}, {5, 0.4}, {6, 0.4}, {7, 0.5}},
            {{1, 0.6}, {2, 0.6}, {3, 0.6}, {4, 0.6}, {5, 0.6}, {6, NAN}},
            {{6, 0.6}}};
        const std::vector<StepBand> band = seedBandSeries(seeds);
        QCOMPARE(band.size(), std::size_t(6));
        QCOMPARE(band.back().step, int64_t(6));
        VERIFY_NEAR(band[0].band.centre, 0.5, 1e-15);
        // s^2 = 0.02, half = t(0.975, 1) * sqrt(0.02 * 1.5) = 12.70620474 * 0.17320508 = 2.20077922.
        VERIFY_NEAR(band[0].band.high, 0.5 + 2.20077922, 1e-7);
        const std::vector<StepValue> run = {{1, 0.5}, {2, 3.0}, {3, 3.0}, {4, NAN}, {5, 3.0}, {6, -2.0}};
        const std::vector<StepRange> ranges = stepsOutsideBand(band, run);
        QCOMPARE(ranges.size(), std::size_t(3));
        QCOMPARE(ranges[0].first, int64_t(2));
        QCOMPARE(ranges[0].last, int64_t(3));
        QVERIFY(ranges[0].above);
        QCOMPARE(ranges[1].first, int64_t(5));
        QCOMPARE(ranges[1].last, int64_t(5));
        QCOMPARE(ranges[2].first, int64_t(6));
        QVERIFY(!ranges[2].above);
    }

    // Two seeds, the fewest the contract allows, already make a band. Seeds 1 and 3: mean 2,
    // s^2 = (1 + 1) / 1 = 2, and t(0.975, 1) is Cauchy's quantile tan(0.475 pi), so the half
    // width is tan(0.475 pi) sqrt(2) sqrt(1 + 1/2) = tan(0.475 pi) sqrt(3) = 22.0078.
    void twoSeedsMakeABand() {
        const SampleSummary seeds = summarize({1.0, 3.0});
        const BandInterval band = bandOf(seeds);
        QCOMPARE(band.seeds, 2);
        const double half = std::tan(0.475 * kPi) * std::sqrt(3.0);
        VERIFY_NEAR(band.low, 2.0 - half, 1e-10);
        VERIFY_NEAR(band.high, 2.0 + half, 1e-10);
        QCOMPARE(labelRunAgainstBand(2.0 + 2.0 * half, seeds).label, Label::Outside);
    }

    // Seeds that all agree (0.5 three times: s = 0 exactly) predict that value and no other:
    // the same value has t = 0 and two-sided p = 1, inside; any other t = +inf and p = 0.
    // Two arms without spread and equal means: t = 0, one-sided P(T > 0) = 1/2 either way;
    // inside even at a level of exactly 1/2, since "outside" is p < alpha (SeedBand.h).
    void seedsWithoutSpread() {
        const double inf = std::numeric_limits<double>::infinity();
        const SampleSummary seeds = summarize({0.5, 0.5, 0.5});
        QCOMPARE_BITS(seeds.sd, 0.0);
        const GapLabel same = labelRunAgainstBand(0.5, seeds);
        QCOMPARE_BITS(same.t, 0.0);
        QCOMPARE_BITS(same.p, 1.0);
        QCOMPARE(same.label, Label::Inside);
        const GapLabel other = labelRunAgainstBand(0.75, seeds);
        QCOMPARE_BITS(other.t, inf);
        QCOMPARE_BITS(other.p, 0.0);
        QCOMPARE(other.label, Label::Outside);
        const SampleSummary arm = summarize({0.5, 0.5});
        for (const Alternative alternative : {Alternative::Greater, Alternative::Less}) {
            const GapLabel equal = labelSeedsAgainstBand(arm, seeds, alternative);
            QCOMPARE_BITS(equal.t, 0.0);
            QCOMPARE_BITS(equal.p, 0.5);
            QCOMPARE_BITS(equal.df, 3.0);
            QCOMPARE(equal.label, Label::Inside);
            QCOMPARE(labelSeedsAgainstBand(arm, seeds, alternative, 0.5).label, Label::Inside);
        }
        const SampleSummary higher = summarize({0.75, 0.75});
        QCOMPARE_BITS(labelSeedsAgainstBand(higher, seeds, Alternative::Greater).p, 0.0);
        QCOMPARE_BITS(labelSeedsAgainstBand(higher, seeds, Alternative::Less).p, 1.0);
    }

    // The band is closed: a run exactly on an edge is inside, as its label says (p = alpha
    // there, and "outside" is p < alpha). Edges 0 and 1 are exact, so "on" is exact; one ulp
    // past either edge is outside.
    void aValueOnAnEdgeIsInside() {
        const BandInterval unit{2, 0.5, 0.0, 1.0};
        const std::vector<StepBand> band = {{1, unit}, {2, unit}, {3, unit}};
        QVERIFY(stepsOutsideBand(band, {{1, 1.0}, {2, 0.0}, {3, 1.0}}).empty());
        const auto ranges = stepsOutsideBand(band, {{1, std::nextafter(1.0, 2.0)}, {2, 1.0}, {3, -0x1p-1074}});
        QCOMPARE(ranges.size(), std::size_t(2));
        QVERIFY(ranges[0].above && ranges[0].first == 1 && ranges[0].last == 1);
        QVERIFY(!ranges[1].above && ranges[1].first == 3 && ranges[1].last == 3);
    }

    void labelsAndRuleHaveNames() {
        QCOMPARE(QString(labelName(Label::Inside)), QString("inside"));
        QCOMPARE(QString(labelName(Label::Outside)), QString("outside"));
        QVERIFY(QString(kSeedBandRule).contains("t(0.975, N-1) * s * sqrt(1 + 1/N)"));
    }
};

QTEST_APPLESS_MAIN(TestStats)
#include "test_stats.moc"
