// The run set's stores and the plots' plain helpers at their edges, each against the
// contract its header writes down and a value worked out by hand: which runs are shown
// and which is the partner, where the focus goes, which run went non-finite first, the
// seeds of a config among the shown runs, the debiased EMA of the loss, the scale before
// any change, what a store leaves out (a "what if" count, a NaN cosine or ratio, a later
// non-finite record), bytes in MiB, the decimated series' view and kept points, and
// 2^k written with a superscript, the histogram slice's bars and scaled limits, and the
// heatmap's fp16 bands.
#include <QtTest/QtTest>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "runset/DecimatedSeries.h"
#include "plots/HeatmapPlot.h"
#include "plots/HistogramSlicePlot.h"
#include "views/LossPlot.h"
#include "plots/SeedBandGraphs.h"
#include "plots/PowerOfTwoText.h"
#include "probes/ComparisonRecords.h"
#include "probes/ProbeRecords.h"
#include "probes/StepAuditRecords.h"
#include "runset/RunSeedGroups.h"
#include "runset/RunSet.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

RunContext named(const char* name, uint64_t seed = 0) {
    RunContext context;
    context.title = QString::fromLatin1(name);
    context.config.seed = seed;
    context.config.probes.every = 1;
    return context;
}

const RunSet::AddOptions kHidden{false, false};
const RunSet::AddOptions kComparedBehind{false, true};

nlohmann::json nonFiniteAt(int64_t step, std::string_view via = {}) {
    NonFiniteRecord r;
    r.event.step = step;
    r.event.layer = "fc1";
    r.event.phase = "backward";
    r.event.tensor = "gradient";
    r.event.nan = 1;
    r.event.numel = 4;
    if (!via.empty()) r.event.via = std::string(via);
    return toJson(r);
}

std::vector<RunId> idsOf(const std::vector<const RunModel*>& runs) {
    std::vector<RunId> ids;
    for (const RunModel* run : runs) ids.push_back(run->id());
    return ids;
}

}  // namespace

class GuiSeriesEdgesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The focused run first and once, then the compared ones; the partner is the first of
    // those, never the focused run itself.
    void thePartnerIsTheFirstComparedRunBesideTheFocusedOne() {
        RunSet set;
        RunModel* a = set.addRun(named("a"));
        RunModel* b = set.addRun(named("b"), kComparedBehind);
        set.addRun(named("c"), kHidden);
        QCOMPARE(set.focusedId(), a->id());
        QCOMPARE(idsOf(set.shownRuns()), (std::vector<RunId>{a->id(), b->id()}));
        QVERIFY(set.partner() == b);
    }

    void removingTheFocusedRunFocusesTheLastOneLeft() {
        RunSet set;
        RunModel* a = set.addRun(named("a"));
        set.addRun(named("b"), kComparedBehind);
        RunModel* c = set.addRun(named("c"), kComparedBehind);
        set.removeRun(a->id());
        QCOMPARE(set.focusedId(), c->id());
    }

    // At one step the run where the value appeared comes before a rank that received it
    // through the gradient all-reduce, whichever is listed first.
    void atOneStepTheRunWhereItAppearedComesFirst() {
        RunSet set;
        RunModel* appeared = set.addRun(named("rank0"));
        RunModel* received = set.addRun(named("rank1"), kComparedBehind);
        appeared->takeRecord(nonFiniteAt(5));
        received->takeRecord(nonFiniteAt(5, nonfinite_via::kGradientAllReduce));
        QCOMPARE(set.firstNonFinite({appeared->id(), received->id()}), appeared->id());
        QCOMPARE(set.firstNonFinite({received->id(), appeared->id()}), appeared->id());
    }

    // Seeds of one config among the shown runs only: a hidden third seed is not in the
    // band, and the group names each shown seed once.
    void aSeedGroupHoldsTheShownSeedsEachOnce() {
        RunSet set;
        RunModel* a = set.addRun(named("mlp seed 1", 1));
        RunModel* b = set.addRun(named("mlp seed 2", 2), kComparedBehind);
        set.addRun(named("mlp seed 3", 3), kHidden);
        const std::vector<RunSeedGroup> groups = shownSeedGroups(set);
        QCOMPARE(groups.size(), std::size_t{1});
        QCOMPARE(groups[0].ids(), (std::vector<RunId>{a->id(), b->id()}));
    }

    // EMA with factor 0.95, divided by 1 - 0.95^n: the first value is the first loss, the
    // second (0.95 * 0.05 * 2 + 0.05 * 4) / (0.95 * 0.05 + 0.05) = (1.9 + 4) / 1.95.
    void theSmoothedLossStartsAtTheFirstLoss() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        StepMetrics m;
        m.step = 1;
        m.loss = 2.0;
        m.scale = 1.0;
        run->appendSteps({m});
        const DecimatedSeries& smoothed = run->steps().smoothedLoss();
        QVERIFY(std::abs(smoothed.y(0) - 2.0) < 1e-12);
        m.step = 2;
        m.loss = 4.0;
        run->appendSteps({m});
        QVERIFY(std::abs(smoothed.y(1) - 5.9 / 1.95) < 1e-12);
    }

    void theScaleBeforeAnyChangeIsOne() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        QCOMPARE_BITS(run->histograms().scaleAt(0), 1.0);
        QCOMPARE_BITS(run->histograms().scaleAt(100), 1.0);
    }

    // A count of value * 8 is a "what if", not what happened: the store keeps none.
    void aWhatIfUnderflowCountIsNotKept() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        UnderflowRecord r;
        r.step = 1;
        r.layer = "fc1";
        r.kind = "param_grad";
        r.multiplier = 8.0;
        r.counts.normal = 4;
        run->takeUnderflow(r);
        QVERIFY(run->underflow().empty());
        r.multiplier = 1.0;
        run->takeUnderflow(r);
        QVERIFY(!run->underflow().empty());
    }

    void aNaNCosineIsNotPlotted() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        LockstepRecord r;
        r.step = 2;
        r.mode = "fp16";
        r.lossDiff = -0.25;
        r.layers = {{"fc1", 0.0, std::nan(""), 0, 0, 0}, {"fc2", 0.0, 0.5, 0, 0, 0}};
        run->takeRecord(toJson(r));
        QVERIFY(run->lockstep().cosine("fc1") == nullptr);
        QVERIFY(run->lockstep().cosine("fc2") != nullptr);
        QCOMPARE_BITS(run->lockstep().minCosine(), 0.5);
        QCOMPARE_BITS(run->lockstep().maxAbsDifference(), 0.25);
    }

    // The first non-finite record is the event; a later one does not replace it.
    void theFirstNonFiniteRecordIsTheEvent() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        run->takeRecord(nonFiniteAt(3));
        run->takeRecord(nonFiniteAt(7));
        QCOMPARE(run->nonFinite().step(), int64_t{3});
    }

    // 3 MiB is 3 * 2^20 bytes.
    void memoryIsShownInMebibytes() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        MemoryRecord r;
        r.step = 4;
        r.usage.rssBytes = 3 * 1024 * 1024;
        r.usage.peakRssBytes = 5 * 1024 * 1024;
        run->takeRecord(toJson(r));
        QCOMPARE_BITS(run->memory().rss().y(0), 3.0);
        QCOMPARE_BITS(run->memory().maxMiB(), 5.0);
    }

    // A NaN ratio leaves a gap (no point); lost updates are lost / intended.
    void updatesKeepFiniteRatiosAndTheLostShare() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        UpdateRatioRecord r;
        r.step = 1;
        r.ratio.layer = "fc1";
        r.ratio.ratio = std::nan("");
        r.ratio.intendedNonZero = 4;
        r.ratio.lost = 1;
        run->takeRecord(toJson(r));
        QCOMPARE(run->updates().layers().size(), std::size_t{1});
        QVERIFY(run->updates().layers()[0].ratio.empty());
        QCOMPARE_BITS(run->updates().layers()[0].lostFraction.y(0), 0.25);
    }

    // "2⁻²⁴" with the superscript minus (U+207B); a fractional exponent with two decimals.
    void powersOfTwoAreWrittenWithSuperscripts() {
        QCOMPARE(powerOfTwoText(-24.0), QString::fromUtf8("2\u207B\u00B2\u2074"));
        QCOMPARE(powerOfTwoText(15.0), QString::fromUtf8("2\u00B9\u2075"));
        QCOMPARE(powerOfTwoText(13.2877), QStringLiteral("2^13.29"));
    }

    // Ten points at x = 0..9: at 5 columns (2 points a column) every point is drawn; a
    // range inside the data takes one neighbour on each side.
    void aViewOfFewPointsIsThePointsAndTheirNeighbours() {
        DecimatedSeries s;
        for (int i = 0; i < 10; ++i) s.append(i, i * i);
        std::vector<DecimatedSeries::Point> out;
        s.view(0.0, 9.0, 5, out);
        QCOMPARE(out.size(), std::size_t{10});
        s.view(2.5, 6.5, 100, out);
        std::vector<double> xs;
        for (const auto& p : out) xs.push_back(p.x);
        QCOMPARE(xs.size(), std::size_t{6});
        QCOMPARE_BITS(xs.front(), 2.0);
        QCOMPARE_BITS(xs.back(), 7.0);
    }

    void zeroIsNoPositiveValue() {
        DecimatedSeries s;
        s.append(0, 0.0);
        s.append(1, 2.0);
        QVERIFY(s.hasPositiveY());
        QCOMPARE_BITS(s.minPositiveY(), 2.0);
    }

    // Two buckets at most: after 8 points the first bucket is x = 0..3, with y 1, NaN,
    // NaN, 1. It keeps its first point and its first non-finite one (x = 1), not x = 2.
    void aMergedBucketKeepsItsFirstNonFinitePoint() {
        DecimatedSeries s(2);
        const double nan = std::nan("");
        const double ys[8] = {1.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0};
        for (int i = 0; i < 8; ++i) s.append(i, ys[i]);
        QCOMPARE(s.pointsPerBucket(), std::size_t{4});
        std::vector<double> nanXs;
        for (std::size_t i = 0; i < s.size(); ++i)
            if (std::isnan(s.y(i))) nanXs.push_back(s.x(i));
        QCOMPARE(nanXs.size(), std::size_t{1});
        QCOMPARE_BITS(nanXs[0], 1.0);
    }
    // Bar k covers [2^k, 2^(k+1)) on the log2 axis: its centre is k + 0.5. The edge bars
    // also hold what lies beyond the range. With the values held at a scale of 2^10 the
    // fp16 limits 2^-25, 2^-14 and 2^16 divided by it sit at -35, -24 and 6.
    void theSliceBarsSitOnTheirBinsAndTheLimitsAreDividedByTheScale() {
        HistogramSlicePlot plot;
        plot.resize(400, 300);
        HistogramSlicePlot::Slice slice;
        slice.step = 8;
        slice.layer = QStringLiteral("fc1");
        slice.histogram.below = 3;
        slice.histogram.counts[0] = 4;  // 2^kMinExponent
        slice.histogram.counts[static_cast<std::size_t>(-kMinExponent)] = 6;  // 2^0
        slice.histogram.counts[static_cast<std::size_t>(kMaxExponent - kMinExponent)] = 5;
        slice.histogram.above = 2;
        slice.log2Scale = 10.0;
        plot.setSlice(slice);
        QCOMPARE_BITS(plot.barValue(kMinExponent), 7.0);
        QCOMPARE_BITS(plot.barValue(kMinExponent + 1), 0.0);
        QCOMPARE_BITS(plot.barValue(0), 6.0);
        QCOMPARE_BITS(plot.barValue(kMaxExponent), 7.0);
        QCPBars* bars = nullptr;
        for (int i = 0; i < plot.plottableCount() && !bars; ++i) bars = qobject_cast<QCPBars*>(plot.plottable(i));
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), 3);
        QCOMPARE_BITS(bars->data()->at(0)->key, kMinExponent + 0.5);
        QCOMPARE_BITS(bars->data()->at(1)->key, 0.5);
        const std::vector<double> limits = plot.scaledLimitXs();
        QCOMPARE(limits.size(), std::size_t{3});
        QCOMPARE_BITS(limits[0], -35.0);
        QCOMPARE_BITS(limits[1], -24.0);
        QCOMPARE_BITS(limits[2], 6.0);
    }

    // The subnormal band spans [-25, -14] and the flush band ends at -25 (ids 1..3 are
    // the bands in creation order: flush, subnormal, overflow).
    void theHeatmapSubnormalBandEndsAtTheSmallestNormal() {
        HeatmapPlot map;
        map.resize(800, 400);
        map.showFp16Limits(10);
        QCOMPARE_BITS(map.overlayHighY(1), -25.0);
        QCOMPARE_BITS(map.overlayY(2), -25.0);
        QCOMPARE_BITS(map.overlayHighY(2), -14.0);
        QCOMPARE_BITS(map.overlayY(3), 16.0);
    }
    // Three seeds whose first losses are 0.1, 0.1 and 10: the band's low edge is far
    // below 0 (t(0.975, 2) = 4.30 times an sd of 5.7), so it is drawn at kLowestDrawnShare
    // of the centre, the mean 3.4.
    void aSeedBandsLowEdgeStaysAboveZeroForAPositiveMean() {
        RunSet set;
        const double losses[3] = {0.1, 0.1, 10.0};
        for (int seed = 1; seed <= 3; ++seed) {
            RunModel* run = set.addRun(named(seed == 1 ? "s1" : seed == 2 ? "s2" : "s3", seed),
                                       seed == 1 ? RunSet::AddOptions{} : kComparedBehind);
            StepMetrics m;
            m.step = 1;
            m.loss = losses[seed - 1];
            m.scale = 1.0;
            run->appendSteps({m});
        }
        LossPlot plot(&set);
        QCOMPARE(plot.seedBandCount(), 1);
        QCPGraph* low = plot.seedBandLowGraph(0);
        QVERIFY(low && low->data()->size() == 1);
        const double expected = 3.4 * SeedBandGraphs::kLowestDrawnShare;
        QVERIFY2(std::abs(low->data()->at(0)->value - expected) < 1e-12,
                 qPrintable(QString::number(low->data()->at(0)->value)));
    }

    // Halfway between two kept points the earlier one is the nearest, as for the scale
    // plot's changes (ScalePlot::nearestChange): a hover between two steps reads the first.
    void halfwayBetweenTwoPointsTheEarlierIsNearest() {
        DecimatedSeries s;
        s.append(10, 1.0);
        s.append(20, 2.0);
        QCOMPARE(s.nearestIndex(15.0), std::size_t{0});
        QCOMPARE(s.nearestIndex(15.5), std::size_t{1});
        QCOMPARE_BITS(s.yNear(15.0), 1.0);
    }
};

QTEST_MAIN(GuiSeriesEdgesTest)
#include "test_gui_series_edges.moc"
