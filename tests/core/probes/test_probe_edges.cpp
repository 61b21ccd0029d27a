// The probes' plain results at their edges, each against a value worked out by hand: the
// exponent histogram's end bins and sums, the fp16 classes of a histogram from IEEE 754
// binary16's limits (|x| < 2^-25 flushes to 0, |x| >= 65520 rounds to inf), two stats that
// differ in their element count only, records written before a field existed (the
// documented default is what reads back), the precision map's tolerance per phase and
// its ranking, and the precision map's text; then two torch probes at their limits (as
// many multipliers as the header allows; an update where nothing was intended).
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "kernels/ProbeElementRules.h"
#include "probes/ComparisonRecords.h"
#include "probes/ExponentHistogram.h"
#include "probes/FormatQuantRecord.h"
#include "probes/GradientProbe.h"
#include "probes/Fp16Classes.h"
#include "probes/PrecisionMapRecord.h"
#include "probes/PrecisionMapText.h"
#include "probes/ProbeRecords.h"
#include "probes/TensorStats.h"
#include "probes/UpdateRatioProbe.h"
#include "run/RecordError.h"

using namespace ampscope;
using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t binOf(int exponent) {
    return static_cast<std::size_t>(exponent - kMinExponent);
}

// 3 below the range, 4 in the lowest bin (2^-64), 6 at 2^0, 5 in the highest bin (2^32),
// 2 above it; 1 zero, 1 NaN, 1 +Inf, 7 -Inf.
ExponentHistogram edgeHistogram() {
    ExponentHistogram h;
    h.below = 3;
    h.counts[binOf(kMinExponent)] = 4;
    h.counts[binOf(0)] = 6;
    h.counts[binOf(kMaxExponent)] = 5;
    h.above = 2;
    h.zero = 1;
    h.nan = 1;
    h.posInf = 1;
    h.negInf = 7;
    return h;
}

PrecisionMapOp opWith(const char* phase, double relError, double addedError) {
    PrecisionMapOp op;
    op.op = "aten::linear";
    op.module = "fc1";
    op.phase = phase;
    op.elements = 16;
    op.relError = relError;
    op.addedError = addedError;
    return op;
}

}  // namespace

class ProbeEdgesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void histogramEndBinsAndSumsByHand() {
        const ExponentHistogram h = edgeHistogram();
        QCOMPARE(kMaxExponent, 32);  // the counts below assume the documented range
        QCOMPARE(h.countAt(kMinExponent), int64_t{4});
        QCOMPARE(h.countAt(kMaxExponent), int64_t{5});
        QCOMPARE(h.finiteNonZero(), int64_t{3 + 4 + 6 + 5 + 2});
        QCOMPARE(h.total(), int64_t{20 + 1 + 1 + 1 + 7});
        // At or above the highest bin: that bin and everything above the range.
        QCOMPARE(h.massAtOrAboveExponent(kMaxExponent), int64_t{5 + 2});
        QCOMPARE(h.massBelowExponent(kMaxExponent), int64_t{3 + 4 + 6});
    }

    // IEEE 754 binary16 at scale 1: 2^-64 and below flush to 0, 2^0 is a normal, 2^32 and
    // above overflow to inf; zeros, NaN and both infinities keep their class.
    void fp16ClassesOfTheEdgeHistogram() {
        const Fp16ClassCounts c = estimateFromHistogram(edgeHistogram(), 0.0);
        QCOMPARE(c.flushed, int64_t{3 + 4});
        QCOMPARE(c.subnormal, int64_t{0});
        QCOMPARE(c.normal, int64_t{6});
        QCOMPARE(c.overflow, int64_t{5 + 2});
        QCOMPARE(c.zero, int64_t{1});
        QCOMPARE(c.nan, int64_t{1});
        QCOMPARE(c.inf, int64_t{1 + 7});
        QVERIFY(!c.exact);
    }

    void statsThatDifferInTheirCountOnlyAreNotTheSame() {
        TensorStats a;
        a.min = -1.0;
        a.max = 2.0;
        a.mean = 0.5;
        a.absMax = 2.0;
        a.numel = 10;
        TensorStats b = a;
        QVERIFY(sameStats(a, b));
        b.numel = 11;
        QVERIFY(!sameStats(a, b));
        TensorStats nanA, nanB;  // all-NaN stats: NaN matches NaN
        nanA.min = nanA.max = nanA.mean = nanA.absMax = kNaN;
        nanB = nanA;
        QVERIFY(sameStats(nanA, nanB));
    }

    // Records written before a field existed read as the header documents.
    void olderRecordsReadTheirDocumentedDefaults() {
        UnderflowRecord u;
        u.step = 3;
        u.layer = "fc1";
        u.kind = "param_grad";
        u.multiplier = 8.0;
        json older = toJson(u);
        older.erase("multiplier");  // before "what if" counts: the values as they are
        QCOMPARE_BITS(underflowRecordFromJson(older).multiplier, 1.0);

        NonFiniteRecord n;
        n.event.step = 9;
        n.event.layer = "fc2";
        n.event.phase = "forward";
        n.event.tensor = "activation";
        n.event.locatedBy = "replay";
        n.event.replayMissedStep = 4;
        json oldEvent = toJson(n);
        oldEvent.erase("located_by");  // runs before the field checked every step
        oldEvent.erase("replay_missed_step");
        const NonFiniteRecord back = nonFiniteRecordFromJson(oldEvent);
        QCOMPARE(back.event.locatedBy, std::string("check"));
        QCOMPARE(back.event.replayMissedStep, int64_t{0});

        FormatQuantRecord f;
        f.step = 2;
        f.point.layer = "fc1";
        f.point.operand = "weight";
        f.point.direction = "forward";
        f.point.format = "e4m3";
        f.point.recipe = "tensor";
        f.point.elements = 8;
        f.point.magnitudeError = 0.5;
        f.point.absoluteSignal = 2.0;
        json oldQuant = toJson(f);
        oldQuant.erase("magnitude_error");  // before the bias was recorded: 0
        oldQuant.erase("absolute_signal");
        QCOMPARE_BITS(formatQuantRecordFromJson(oldQuant).point.magnitudeError, 0.0);
        QCOMPARE_BITS(formatQuantRecordFromJson(oldQuant).point.absoluteSignal, 0.0);

        GradientComparison g;
        g.layer = "fc1";
        g.relError = 0.25;
        g.cosine = 0.5;
        g.lost = 3;
        g.nonzero = 5;
        g.elements = 9;
        json lockstepWriter = gradientComparisonToJson(g);
        for (const char* key : {"lost", "nonzero", "elements"}) lockstepWriter.erase(key);
        const GradientComparison counts = gradientComparisonFromJson(lockstepWriter);
        QCOMPARE(counts.lost, int64_t{0});
        QCOMPARE(counts.nonzero, int64_t{0});
        QCOMPARE(counts.elements, int64_t{0});
    }

    // Lost updates are written only where they were measured (ProbeRecords.md).
    void anUnmeasuredUpdateWritesNoLostCounts() {
        UpdateRatioRecord r;
        r.step = 5;
        r.ratio.layer = "fc1";
        r.ratio.numel = 4;
        r.ratio.ratio = 1e-3;
        r.ratio.weightNorm = 2.0;
        r.ratio.updateNorm = 2e-3;
        QVERIFY(!r.ratio.measuredLoss());
        const json j = toJson(r);
        QVERIFY(!j.contains("intended_nonzero"));
        QVERIFY(!j.contains("lost"));
        QVERIFY(!j.contains("lost_fraction"));
    }

    // An empty key is no exponent.
    void anEmptyBlockExponentKeyIsRefused() {
        FormatQuantRecord f;
        f.point.layer = "fc1";
        f.point.operand = "weight";
        f.point.direction = "forward";
        json j = toJson(f);
        j["block_scale_exponents"] = json({{"", 3}});
        QVERIFY_THROWS_EXCEPTION(RecordError, formatQuantRecordFromJson(j));
    }

    // Forward in bf16 (8 bits: u = 2^-8), backward in fp8 e5m2 (3 bits: u = 2^-3); the
    // tolerance is 10 u of the op's own phase.
    void eachPhaseHasItsOwnUnitRoundoff() {
        PrecisionMapRecord r;
        r.bitsForward = 8;
        r.bitsBackward = 3;
        QCOMPARE_BITS(r.unitRoundoff("forward"), std::ldexp(1.0, -8));
        QCOMPARE_BITS(r.unitRoundoff("backward"), std::ldexp(1.0, -3));
        // 0.5 is past 10 * 2^-8 = 0.039 but within 10 * 2^-3 = 1.25.
        r.ops = {opWith("backward", 0.5, kNaN)};
        QVERIFY(!r.firstPastTolerance().has_value());
        r.ops.push_back(opWith("forward", 0.5, kNaN));
        QCOMPARE(r.firstPastTolerance().value_or(99), std::size_t{1});
    }

    // One new NaN or one new Inf puts an op past the tolerance, whatever its error.
    void aSingleNewNanOrInfIsPastTheTolerance() {
        PrecisionMapRecord r;
        r.bitsForward = r.bitsBackward = 8;
        r.ops = {opWith("forward", 0.0, 0.0), opWith("forward", 0.0, 0.0)};
        QVERIFY(!r.firstPastTolerance().has_value());
        r.ops[1].newNan = 1;
        QCOMPARE(r.firstPastTolerance().value_or(99), std::size_t{1});
        r.ops[1].newNan = 0;
        r.ops[0].newInf = 1;
        QCOMPARE(r.firstPastTolerance().value_or(99), std::size_t{0});
    }

    // Largest added error first; equal errors keep their order; a NaN (not measured) is
    // left out; the count cuts the list.
    void largestAddedRanksByHand() {
        PrecisionMapRecord r;
        r.ops = {opWith("forward", 0.0, 1e-3), opWith("forward", 0.0, 5e-3), opWith("forward", 0.0, kNaN),
                 opWith("forward", 0.0, 2e-3), opWith("forward", 0.0, 2e-3)};
        QCOMPARE(r.largestAdded(10), (std::vector<std::size_t>{1, 3, 4, 0}));
        QCOMPARE(r.largestAdded(2), (std::vector<std::size_t>{1, 3}));
    }

    void anOpWrittenWithoutItsOutputIsOutputZero() {
        PrecisionMapRecord r;
        r.step = 1;
        r.mode = "bf16";
        r.reference = "fp32";
        r.formatForward = r.formatBackward = "bf16";
        r.bitsForward = r.bitsBackward = 8;
        r.ops = {opWith("forward", 1e-3, 1e-3)};
        r.ops[0].output = 2;
        json j = toJson(r);
        j["ops"][0].erase("output");
        QCOMPARE(precisionMapRecordFromJson(j).ops[0].output, 0);
    }

    // The text: 0.05 / 2^-8 = 12.8 unit roundoffs; an op's output index after its name
    // (output 1 is not output 0); a backward format of other bits named in the headline;
    // the ten ops adding the most error, no more.
    void precisionMapTextByHand() {
        PrecisionMapRecord r;
        r.step = 4;
        r.mode = "fp8";
        r.reference = "fp32";
        r.formatForward = r.formatBackward = "e4m3";
        r.bitsForward = 8;
        r.bitsBackward = 4;
        for (int k = 0; k < 11; ++k) r.ops.push_back(opWith("forward", 0.05, 1e-3 * (k + 1)));
        r.ops[1].output = 1;
        const std::string errors = precisionMapOpErrors(r, 0);
        QVERIFY2(errors.find("(12.8 u)") != std::string::npos, errors.c_str());
        QCOMPARE(precisionMapOpName(r, 0), std::string("#0 aten::linear in fc1 (forward)"));
        QCOMPARE(precisionMapOpName(r, 1), std::string("#1 aten::linear[1] in fc1 (forward)"));
        const std::string headline = precisionMapHeadline(r);
        QVERIFY2(headline.find("backward e4m3 (unit roundoff 2^-4)") != std::string::npos, headline.c_str());
        const std::vector<std::string> lines = precisionMapSummary(r);
        int listed = 0;
        bool inList = false;
        for (const std::string& line : lines) {
            if (line == "ops adding the most error:") inList = true;
            else if (inList && line.rfind("  #", 0) == 0) ++listed;
            else if (inList) inList = false;
        }
        QCOMPARE(listed, 10);
    }
    // "At most 4 multipliers" (GradientProbe.h): four are counted, a fifth is refused.
    void theGradientProbeTakesAsManyMultipliersAsItsHeaderAllows() {
        QCOMPARE(probe_rules::kMaxPlans, 4);
        const std::vector<torch::Tensor> values{torch::tensor({1.0f, 0.5f, 0.0f, 65536.0f})};
        const GradientProbeSlots slots = gradientProbeSlots(values, {1.0, 2.0, 4.0, 8.0});
        QCOMPARE(slots.classes.size(0), int64_t{4});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gradientProbeSlots(values, {1.0, 2.0, 4.0, 8.0, 16.0}));
    }

    // An intended delta of zeros is measured: nothing was intended, so nothing was lost
    // (UpdateRatio.h: the fraction is 0 when nothing was intended, NaN when not measured).
    void anUpdateWithNothingIntendedIsMeasuredAsNoLoss() {
        const torch::Tensor before = torch::tensor({1.0f, 2.0f});
        const torch::Tensor after = torch::tensor({1.0f, 2.0f});
        const auto ratios = measureUpdateRatios({before}, {after}, {torch::zeros({2})}, {0}, {"fc1"});
        QCOMPARE(ratios.size(), std::size_t{1});
        QVERIFY(ratios[0].measuredLoss());
        QCOMPARE(ratios[0].intendedNonZero, int64_t{0});
        QCOMPARE(ratios[0].lost, int64_t{0});
        QCOMPARE_BITS(ratios[0].lostFraction(), 0.0);
    }
};

QTEST_APPLESS_MAIN(ProbeEdgesTest)
#include "test_probe_edges.moc"
