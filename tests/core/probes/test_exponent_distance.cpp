// exponentDistance (probes/ExponentDistance.h): the earth mover's distance between two
// gradient histograms on the log2|g| axis, checked against distances worked out by hand.
#include <QtTest/QtTest>
#include <cmath>

#include "ExactCompare.h"
#include "probes/ExponentDistance.h"

using namespace ampscope;

namespace {

ExponentHistogram withBins(std::initializer_list<std::pair<int, int64_t>> bins) {
    ExponentHistogram h;
    for (const auto& [exponent, count] : bins) h.counts[static_cast<std::size_t>(exponent - kMinExponent)] += count;
    return h;
}

}  // namespace

class TestExponentDistance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameShapeIsZeroWhateverTheCounts() {
        const ExponentHistogram a = withBins({{-20, 1}, {-19, 3}, {-18, 2}});
        const ExponentHistogram b = withBins({{-20, 10}, {-19, 30}, {-18, 20}});
        QCOMPARE_BITS(exponentDistance(a, b), 0.0);
        QCOMPARE_BITS(exponentDistance(a, a), 0.0);
    }

    // The dynamic scaler's 2^16: every bin 16 higher.
    void aShiftedHistogramIsItsShift() {
        const ExponentHistogram a = withBins({{-30, 5}, {-28, 1}, {-27, 4}});
        const ExponentHistogram b = withBins({{-14, 5}, {-12, 1}, {-11, 4}});
        QCOMPARE_BITS(exponentDistance(a, b), 16.0);
        QCOMPARE_BITS(exponentDistance(b, a), 16.0);
    }

    // Half the mass 10 binades down, half 10 up, against all of it in the middle: each half
    // moves 10, so 0.5 * 10 + 0.5 * 10.
    void splitMassMovesHalfEachWay() {
        QCOMPARE_BITS(exponentDistance(withBins({{-10, 1}, {10, 1}}), withBins({{0, 2}})), 10.0);
    }

    // Zeros sit two binades under the lowest bin, below/above one step outside the bins.
    void zerosAndTheOuterBinsHaveTheirPlaces() {
        ExponentHistogram zeros;
        zeros.zero = 7;
        QCOMPARE_BITS(exponentDistance(zeros, withBins({{0, 1}})), 0.0 - (kMinExponent - 2));
        ExponentHistogram below;
        below.below = 3;
        QCOMPARE_BITS(exponentDistance(below, withBins({{kMinExponent, 1}})), 1.0);
        ExponentHistogram above;
        above.above = 2;
        QCOMPARE_BITS(exponentDistance(above, withBins({{kMaxExponent, 4}})), 1.0);
    }

    void nanAndInfAreOffTheAxis() {
        ExponentHistogram a = withBins({{-5, 2}});
        a.nan = 100;
        a.posInf = 3;
        a.negInf = 1;
        QCOMPARE_BITS(exponentDistance(a, withBins({{-3, 1}})), 2.0);
        ExponentHistogram onlyNaN;
        onlyNaN.nan = 4;
        QVERIFY(std::isnan(exponentDistance(onlyNaN, withBins({{0, 1}}))));
        QVERIFY(std::isnan(exponentDistance(ExponentHistogram{}, ExponentHistogram{})));
    }
};

QTEST_APPLESS_MAIN(TestExponentDistance)
#include "test_exponent_distance.moc"
