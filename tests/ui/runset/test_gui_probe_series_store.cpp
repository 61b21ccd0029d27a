// ProbeSeriesStore (ui/runset): the bounded copy of a probe series that the gradient
// histogram and underflow docks keep. Records come in step order, the same step again
// adds to its entry, an earlier step is refused; when full, neighbouring pairs are
// thinned to the heavier one (the first on a tie), and the store never exceeds its
// capacity. The expected steps and counts below are worked out by hand from that rule.
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <vector>

#include "ExactCompare.h"
#include "runset/ProbeSeriesStore.h"

using namespace ampscope::ui;

namespace {

// A store of one double per step whose weight is the value itself.
ProbeSeriesStore<double> weighedByValue(std::size_t capacity) {
    return ProbeSeriesStore<double>(capacity, [](const double& v) { return v; });
}

void append(ProbeSeriesStore<double>& store, int64_t step, double value) {
    double* entry = store.entryFor(step);
    QVERIFY2(entry, qPrintable(QStringLiteral("step %1 refused").arg(step)));
    *entry = value;
}

}  // namespace

class ProbeSeriesStoreTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void newStepOpensSameStepReturnsEarlierStepIsRefused() {
        ProbeSeriesStore<std::vector<int>> store(8);
        bool opened = false;
        std::vector<int>* first = store.entryFor(10, &opened);
        QVERIFY(first);
        QVERIFY(opened);
        first->push_back(1);
        // The second layer of the same probe step: the same entry, not a new one.
        std::vector<int>* again = store.entryFor(10, &opened);
        QCOMPARE(again, first);
        QVERIFY(!opened);
        again->push_back(2);
        QVERIFY(store.entryFor(20, &opened));
        QVERIFY(opened);
        // A replayed record of step 10 after step 20: refused, nothing changes.
        QVERIFY(store.entryFor(10, &opened) == nullptr);
        QVERIFY(!opened);
        QVERIFY(store.entryFor(19) == nullptr);
        QCOMPARE(store.size(), std::size_t(2));
        QCOMPARE(store.steps(), (std::vector<int64_t>{10, 20}));
        QCOMPARE(store.entry(0), (std::vector<int>{1, 2}));
        QVERIFY(store.entry(1).empty());
    }

    void thinningKeepsTheHeavierOfEachPairAndTheFirstOnATie() {
        auto store = weighedByValue(4);
        append(store, 10, 1.0);
        append(store, 20, 5.0);
        append(store, 30, 3.0);
        append(store, 40, 3.0);
        QCOMPARE(store.thinnings(), 0);
        // Full: step 50 first thins (10,20) to 20 (5 > 1) and (30,40) to 30 (a tie).
        append(store, 50, 0.5);
        QCOMPARE(store.thinnings(), 1);
        QCOMPARE(store.steps(), (std::vector<int64_t>{20, 30, 50}));
        QCOMPARE_BITS(store.entry(0), 5.0);
        QCOMPARE_BITS(store.entry(1), 3.0);
        QCOMPARE_BITS(store.entry(2), 0.5);
    }

    void withoutAWeightEverySecondStepStaysAndAnOddLastOneToo() {
        ProbeSeriesStore<double> store(5);
        for (int64_t step = 1; step <= 5; ++step) append(store, step, 100.0 * step);
        append(store, 6, 600.0);
        // Pairs (1,2) -> 1, (3,4) -> 3, 5 alone stays; then 6: ceil(5/2) + 1 = 4 entries.
        QCOMPARE(store.steps(), (std::vector<int64_t>{1, 3, 5, 6}));
        QCOMPARE_BITS(store.entry(1), 300.0);
        QCOMPARE_BITS(store.entry(2), 500.0);
    }

    void neverHoldsMoreThanItsCapacity() {
        ProbeSeriesStore<double> store(8);
        for (int64_t step = 1; step <= 1000; ++step) {
            append(store, step, static_cast<double>(step));
            QVERIFY(store.size() <= 8);
        }
        // The first thinning comes with the 9th step (8 -> 4, then the new one: 5), and
        // one more with every 4th step after it: steps 9, 13, ..., 997, that is 248.
        // After the last, 997 makes 5 and 998..1000 fill the store again.
        QCOMPARE(store.thinnings(), 248);
        QCOMPARE(store.size(), std::size_t(8));
        QCOMPARE(store.steps().back(), int64_t(1000));
        for (std::size_t i = 1; i < store.size(); ++i)
            QVERIFY(store.step(i - 1) < store.step(i));
        for (std::size_t i = 0; i < store.size(); ++i)
            QCOMPARE_BITS(store.entry(i), static_cast<double>(store.step(i)));  // moved with its step
    }

    void aCapacityBelowTwoIsTakenAsTwo() {
        ProbeSeriesStore<double> store(0);
        QCOMPARE(store.capacity(), std::size_t(2));
        append(store, 1, 1.0);
        append(store, 2, 2.0);
        append(store, 3, 3.0);  // (1,2) -> 1, then 3
        QCOMPARE(store.steps(), (std::vector<int64_t>{1, 3}));
    }

    void indexAtOrBeforeFindsTheLatestKeptStep() {
        ProbeSeriesStore<double> store(8);
        append(store, 10, 0.0);
        append(store, 20, 0.0);
        append(store, 30, 0.0);
        QCOMPARE(store.indexAtOrBefore(5), std::ptrdiff_t(-1));
        QCOMPARE(store.indexAtOrBefore(10), std::ptrdiff_t(0));
        QCOMPARE(store.indexAtOrBefore(25), std::ptrdiff_t(1));
        QCOMPARE(store.indexAtOrBefore(30), std::ptrdiff_t(2));
        QCOMPARE(store.indexAtOrBefore(99), std::ptrdiff_t(2));
    }

    void theRuleOnItsOwn() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(indicesKeptByThinning({}).empty());
        QCOMPARE(indicesKeptByThinning({7.0}), (std::vector<std::size_t>{0}));
        // (0,1): 2 > 1 keeps 1; (2,3): 1 is not > 2 keeps 2; (4,5): 3 > NaN is false keeps 4.
        QCOMPARE(indicesKeptByThinning({1.0, 2.0, 2.0, 1.0, nan, 3.0}),
                 (std::vector<std::size_t>{1, 2, 4}));
    }

    void clearForgetsStepsAndThinnings() {
        auto store = weighedByValue(2);
        append(store, 1, 1.0);
        append(store, 2, 2.0);
        append(store, 3, 3.0);
        QCOMPARE(store.thinnings(), 1);
        store.clear();
        QVERIFY(store.empty());
        QCOMPARE(store.thinnings(), 0);
        // A new run may start again from step 1.
        append(store, 1, 1.0);
        QCOMPARE(store.steps(), (std::vector<int64_t>{1}));
    }
};

QTEST_MAIN(ProbeSeriesStoreTest)
#include "test_gui_probe_series_store.moc"
