// The measurement probes on hand-built tensors: exponent histograms and fp16
// classes at every boundary (expected bins and classes worked out by hand),
// classification against real fp16 conversion on 10^6 values, the histogram
// estimate against the exact count, tensor stats with non-finite elements,
// and the CPU single-pass kernels against the torch-ops path other devices use.
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <vector>

#include "ExactCompare.h"
#include "probes/ExponentHistogram.h"
#include "probes/Fp16Classes.h"
#include "probes/Fp16Classifier.h"
#include "probes/HistogramProbe.h"
#include "probes/ProbeReadout.h"
#include "probes/TensorStatsProbe.h"

using namespace ampscope;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float below(float x) {
    return std::nextafter(x, 0.0f);
}
float above(float x) {
    return std::nextafter(x, kInf);
}

torch::Tensor floats(const std::vector<float>& values) {
    return torch::tensor(values, torch::kFloat);
}

QString describe(const ExponentHistogram& h) {
    QString text;
    for (int e = kMinExponent; e <= kMaxExponent; ++e)
        if (h.countAt(e)) text += QString(" 2^%1:%2").arg(e).arg(h.countAt(e));
    return text + QString(" below:%1 above:%2 zero:%3 nan:%4 +inf:%5 -inf:%6")
                      .arg(h.below)
                      .arg(h.above)
                      .arg(h.zero)
                      .arg(h.nan)
                      .arg(h.posInf)
                      .arg(h.negInf);
}

QString describe(const Fp16ClassCounts& c) {
    return QString("zero:%1 flushed:%2 subnormal:%3 normal:%4 overflow:%5 nan:%6 inf:%7 exact:%8")
        .arg(c.zero)
        .arg(c.flushed)
        .arg(c.subnormal)
        .arg(c.normal)
        .arg(c.overflow)
        .arg(c.nan)
        .arg(c.inf)
        .arg(c.exact);
}

bool sameCounts(const Fp16ClassCounts& a, const Fp16ClassCounts& b) {
    return a.zero == b.zero && a.flushed == b.flushed && a.subnormal == b.subnormal &&
           a.normal == b.normal && a.overflow == b.overflow && a.nan == b.nan && a.inf == b.inf;
}

#define COMPARE_HISTOGRAMS(actual, expected) \
    QVERIFY2((actual) == (expected),         \
             qPrintable("got" + describe(actual) + "\nwant" + describe(expected)))
#define COMPARE_CLASSES(actual, expected)      \
    QVERIFY2(sameCounts((actual), (expected)), \
             qPrintable("got  " + describe(actual) + "\nwant " + describe(expected)))

// The reference: classes of fp32(x * float(m)) by actually converting to fp16.
Fp16ClassCounts classesByConversion(const torch::Tensor& x, double multiplier) {
    const auto y = x * static_cast<float>(multiplier);
    const auto r = y.to(torch::kHalf).to(torch::kFloat);
    const auto count = [](const torch::Tensor& mask) { return mask.sum().item<int64_t>(); };
    const auto finiteX = torch::isfinite(x);
    const auto nonZero = x.ne(0);
    Fp16ClassCounts c;
    c.zero = count(x.eq(0));
    c.nan = count(torch::isnan(x));
    c.inf = count(torch::isinf(x));
    c.flushed = count(finiteX & nonZero & r.eq(0));
    c.overflow = count(finiteX & torch::isinf(r));
    c.subnormal = count(finiteX & r.ne(0) & r.abs().lt(0x1p-14));
    c.normal = count(finiteX & torch::isfinite(r) & r.abs().ge(0x1p-14));
    return c;
}

// Values spread over fp32 bit patterns: every mantissa, exponents 2^-30..2^19
// (so every fp16 limit and tie is crossed), both signs, plus fp32 subnormals,
// zeros, NaN and infinities.
torch::Tensor valuesAcrossExponents(int64_t n, uint64_t seed) {
    torch::manual_seed(seed);
    const auto biased = torch::randint(127 - 30, 127 + 20, {n}, torch::kInt32);
    const auto mantissa = torch::randint(0, 1 << 23, {n}, torch::kInt32);
    const auto sign = torch::randint(0, 2, {n}, torch::kInt32).mul(-1);  // 0 or -1
    auto bits = biased.__lshift__(23).bitwise_or(mantissa);
    auto x = bits.view(torch::kFloat).clone();
    x = torch::where(sign.ne(0), -x, x);
    // Sprinkle the exact limits and the special values.
    const std::vector<float> special = {0.0f,     -0.0f,    kNaN,      kInf,
                                        -kInf,    0x1p-25f, -0x1p-25f, 0x1p-14f - 0x1p-25f,
                                        65520.0f, 65504.0f, 1e-40f,    0x1p-24f};
    auto flat = x.view({-1});
    for (size_t k = 0; k < special.size(); ++k)
        flat.slice(0, static_cast<int64_t>(k) * 997, n, 50021).fill_(special[k]);
    return x;
}

}  // namespace

class ProbesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(2); }

    // ---- exponent histogram ----

    void histogramBinsAtEveryBoundary() {
        const auto x = floats({0x1p-25f,
                               above(0x1p-25f),
                               0x1p-24f,
                               0x1p-14f,
                               below(0x1p-14f),
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               0.0f,
                               -0.0f,
                               kNaN,
                               kInf,
                               -kInf,
                               1e-40f,
                               std::numeric_limits<float>::denorm_min(),
                               0x1p-64f,
                               below(0x1p-64f),
                               0x1p-65f,
                               0x1p32f,
                               below(0x1p33f),
                               0x1p33f,
                               std::numeric_limits<float>::max(),
                               -0x1p-24f,
                               -3.0f,
                               1.0f,
                               below(1.0f)});
        ExponentHistogram want;
        const auto bin = [&](int e) -> int64_t& {
            return want.counts[static_cast<size_t>(e - kMinExponent)];
        };
        bin(-25) += 2;  // 2^-25, just above it
        bin(-24) += 2;  // 2^-24, -2^-24
        bin(-14) += 1;  // 2^-14
        bin(-15) += 1;  // just below 2^-14
        bin(15) += 3;   // 65504, 65519, 65520 all lie in [2^15, 2^16)
        want.zero = 2;  // +0, -0
        want.nan = 1;
        want.posInf = 1;
        want.negInf = 1;
        want.below = 4;  // two fp32 subnormals, just below 2^-64, 2^-65
        bin(-64) += 1;   // 2^-64: the lowest bin
        bin(32) += 2;    // 2^32, just below 2^33
        want.above = 2;  // 2^33, FLT_MAX
        bin(1) += 1;     // -3
        bin(0) += 1;     // 1
        bin(-1) += 1;    // just below 1: a log2() would say 0
        COMPARE_HISTOGRAMS(computeExponentHistogram(x), want);
        QCOMPARE(want.total(), x.numel());
        COMPARE_HISTOGRAMS(
            histogramFromSlots(
                probe_detail::histogramSlotsWithTorchOps(x).contiguous().data_ptr<double>()),
            want);
    }

    void histogramReadsHalfAndBfloat16Exactly() {
        const auto x = floats({0x1p-24f, 0x1p-14f, 65504.0f, 0.0f, kNaN, -kInf, 1.5f, 0x1p-20f});
        const auto fromFloat = computeExponentHistogram(x);
        COMPARE_HISTOGRAMS(computeExponentHistogram(x.to(torch::kHalf)), fromFloat);
        // bfloat16 keeps fp32's exponent: 2^-100 stays 2^-100 (below the bins).
        const auto b = floats({0x1p-100f, 0x1p-64f, 0x1p40f, -2.0f}).to(torch::kBFloat16);
        const auto h = computeExponentHistogram(b);
        QCOMPARE(h.below, int64_t(1));
        QCOMPARE(h.countAt(-64), int64_t(1));
        QCOMPARE(h.above, int64_t(1));
        QCOMPARE(h.countAt(1), int64_t(1));
        QVERIFY_EXCEPTION_THROWN(computeExponentHistogram(torch::ones({3}, torch::kLong)),
                                 std::invalid_argument);
    }

    void histogramOfSeveralTensorsIsOneHistogram() {
        const auto w = floats({1.0f, 2.0f, 0.0f});
        const auto b = floats({1.5f, kNaN});
        const auto h = computeExponentHistogram(std::vector<torch::Tensor>{w, torch::Tensor(), b});
        QCOMPARE(h.countAt(0), int64_t(2));
        QCOMPARE(h.countAt(1), int64_t(1));
        QCOMPARE(h.zero, int64_t(1));
        QCOMPARE(h.nan, int64_t(1));
        QCOMPARE(h.total(), int64_t(5));
        QCOMPARE(computeExponentHistogram(std::vector<torch::Tensor>{}).total(), int64_t(0));
    }

    void histogramCpuKernelMatchesTorchOpsOnRandomValues() {
        const auto x = valuesAcrossExponents(200003, 7) * 0x1p-20f;  // reaches below 2^-64 too
        const auto cpu = computeExponentHistogram(x);
        const auto ops = histogramFromSlots(
            probe_detail::histogramSlotsWithTorchOps(x).contiguous().data_ptr<double>());
        COMPARE_HISTOGRAMS(cpu, ops);
        QCOMPARE(cpu.total(), x.numel());
        // Non-contiguous input reads the same values.
        const auto wide = x.view({-1, 1}).expand({-1, 2}).t();
        QCOMPARE(computeExponentHistogram(wide).total(), 2 * x.numel());
        // Every kind of bit pattern (NaNs of both signs with payloads, Inf, subnormals),
        // half of them zeroed in no pattern as a ReLU's gradient is.
        const auto bits = torch::randint(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                                         {100003}, torch::kInt32);
        const auto patterns = bits.view(torch::kFloat) * (torch::rand({100003}) < 0.5).to(torch::kFloat);
        const auto fromBits = computeExponentHistogram(patterns);
        COMPARE_HISTOGRAMS(fromBits, histogramFromSlots(probe_detail::histogramSlotsWithTorchOps(patterns)
                                                            .contiguous()
                                                            .data_ptr<double>()));
        QVERIFY(fromBits.nan > 0 && fromBits.below > 0 && fromBits.above > 0 && fromBits.zero > 40000);
    }

    void massBelowAndAboveCountWholeBins() {
        ExponentHistogram h;
        h.counts[static_cast<size_t>(-26 - kMinExponent)] = 5;
        h.counts[static_cast<size_t>(-25 - kMinExponent)] = 7;
        h.counts[static_cast<size_t>(-14 - kMinExponent)] = 11;
        h.counts[static_cast<size_t>(16 - kMinExponent)] = 13;
        h.below = 2;
        h.above = 3;
        h.zero = 100;  // no magnitude: never "below"
        QCOMPARE(h.massBelow(0x1p-24), int64_t(2 + 5 + 7));
        QCOMPARE(h.massBelow(0x1p-25), int64_t(2 + 5));
        QCOMPARE(h.massBelow(0x1p-14), int64_t(2 + 5 + 7));
        QCOMPARE(h.massBelowExponent(kMinExponent), int64_t(2));
        QCOMPARE(h.massAtOrAbove(65536.0), int64_t(13 + 3));
        QCOMPARE(h.massAtOrAboveExponent(kMaxExponent + 1), int64_t(3));
        QVERIFY_EXCEPTION_THROWN(h.massBelow(1e-5), std::invalid_argument);
        QVERIFY_EXCEPTION_THROWN(h.massBelow(0x1p-70), std::out_of_range);
        ExponentHistogram sum = h;
        sum += h;
        QCOMPARE(sum.total(), 2 * h.total());
        // Outside [kMinExponent, kMaxExponent] there is no bin: countAt is 0 there, whatever
        // `below` and `above` hold; a split past kMaxExponent + 1 would cut the `above` bin.
        QCOMPARE(h.countAt(kMinExponent - 1), int64_t(0));
        QCOMPARE(h.countAt(kMaxExponent + 1), int64_t(0));
        QVERIFY_EXCEPTION_THROWN(h.massBelowExponent(kMaxExponent + 2), std::out_of_range);
        QVERIFY_EXCEPTION_THROWN(h.massAtOrAboveExponent(kMaxExponent + 2), std::out_of_range);
    }

    // ---- fp16 classes ----

    void fp16ClassesAtEveryBoundary() {
        struct Case {
            float value;
            int cls;  // 0 zero, 1 flushed, 2 subnormal, 3 normal, 4 overflow, 5 nan, 6 inf
        };
        const std::vector<Case> cases = {
            {0.0f, 0},
            {-0.0f, 0},
            {0x1p-25f, 1},  // the tie between 0 and 2^-24 goes to 0 (even)
            {-0x1p-25f, 1},
            {above(0x1p-25f), 2},  // past the tie: rounds up to 2^-24
            {below(0x1p-25f), 1},
            {0x1p-24f, 2},             // smallest subnormal
            {0x1p-14f, 3},             // smallest normal
            {below(0x1p-14f), 3},      // rounds up to 2^-14
            {0x1p-14f - 0x1p-25f, 3},  // tie between the largest subnormal and 2^-14: even is 2^-14
            {below(0x1p-14f - 0x1p-25f), 2},
            {0x1p-14f - 0x1p-24f, 2},  // the largest subnormal itself
            {65504.0f, 3},
            {65519.0f, 3},
            {below(65520.0f), 3},  // rounds down to 65504
            {65520.0f, 4},         // the tie between 65504 and 2^16 goes up: inf
            {-65520.0f, 4},
            {kNaN, 5},
            {kInf, 6},
            {-kInf, 6},
            {1e-40f, 1},
            {std::numeric_limits<float>::denorm_min(), 1},  // fp32 subnormals
            {0x1p-64f, 1},
            {0x1p-65f, 1},
            {0x1p32f, 4},
            {0x1p33f, 4},
            {1.0f, 3},
            {-2.5f, 3},
        };
        std::vector<float> values;
        Fp16ClassCounts want;
        for (const auto& c : cases) {
            values.push_back(c.value);
            int64_t* slots[] = {&want.zero,     &want.flushed, &want.subnormal, &want.normal,
                                &want.overflow, &want.nan,     &want.inf};
            ++*slots[c.cls];
        }
        const auto x = floats(values);
        COMPARE_CLASSES(classifyForFp16(x), want);
        COMPARE_CLASSES(classesByConversion(x, 1.0), want);  // the hand expectations are right
        const auto ops = probe_detail::fp16ClassSlotsWithTorchOps(x, {1.0}).contiguous();
        COMPARE_CLASSES(fp16ClassesFromSlots(ops.data_ptr<double>()), want);
        QVERIFY(classifyForFp16(x).exact);
        QCOMPARE(want.total(), x.numel());
        // One value at a time, so a wrong class is named.
        for (const auto& c : cases) {
            const auto got = classifyForFp16(floats({c.value}));
            const auto ref = classesByConversion(floats({c.value}), 1.0);
            QVERIFY2(sameCounts(got, ref),
                     qPrintable(QString("value %1").arg(double(c.value), 0, 'g', 17)));
        }
    }

    void fp16ClassesEqualConversionOnAMillionValues() {
        const auto x = valuesAcrossExponents(1000000, 42);
        const std::vector<double> multipliers = {1.0,    0.5, 2.0, 65536.0, 0x1p-20,
                                                 1000.0, 3.0, 0.1, 0x1p100, 0x1p-100};
        const auto got = classifyForFp16(x, multipliers);
        const auto ops = probe_detail::fp16ClassSlotsWithTorchOps(x, multipliers).contiguous();
        QCOMPARE(got.size(), multipliers.size());
        for (size_t k = 0; k < multipliers.size(); ++k) {
            const auto want = classesByConversion(x, multipliers[k]);
            QVERIFY2(sameCounts(got[k], want),
                     qPrintable(QString("multiplier %1\ngot  %2\nwant %3")
                                    .arg(multipliers[k])
                                    .arg(describe(got[k]), describe(want))));
            COMPARE_CLASSES(
                fp16ClassesFromSlots(ops.data_ptr<double>() + k * fp16_class_slot::kCount), want);
        }
        // The classes must actually be populated for this to test anything.
        QVERIFY(got[0].flushed > 1000 && got[0].subnormal > 1000 && got[0].overflow > 1000);
    }

    void fp16ClassesForAMultiplierBeyondFloat() {
        // The what-if "2 x scale" at a scale of 2^127 is 2^128, not a float. By hand:
        // 2^-149 * 2^128 = 2^-21 is an fp16 subnormal, 2^-142 -> 2^-14 and 2^-141 -> 2^-13
        // are normal, 1 -> 2^128 overflows; nothing is small enough to flush.
        const auto x = floats({0x1p-149f, 0x1p-142f, 0x1p-141f, 1.0f, 0.0f});
        const auto c = classifyForFp16(x, std::ldexp(1.0, 128));
        QCOMPARE(c.zero, int64_t(1));
        QCOMPARE(c.flushed, int64_t(0));
        QCOMPARE(c.subnormal, int64_t(1));
        QCOMPARE(c.normal, int64_t(2));
        QCOMPARE(c.overflow, int64_t(1));
    }

    void fp16ClassesOfHalfInputAndOfSeveralTensors() {
        const auto x = floats({0x1p-24f, 0x1p-14f, 65504.0f, 0.0f, kNaN});
        COMPARE_CLASSES(classifyForFp16(x.to(torch::kHalf)), classifyForFp16(x));
        // bfloat16 reaches far below fp16: 2^-30 flushes, 2^20 overflows.
        const auto b = floats({0x1p-30f, 0x1p20f, 1.0f}).to(torch::kBFloat16);
        const auto c = classifyForFp16(b);
        QCOMPARE(c.flushed, int64_t(1));
        QCOMPARE(c.overflow, int64_t(1));
        QCOMPARE(c.normal, int64_t(1));
        const auto both = classifyForFp16(std::vector<torch::Tensor>{x, b}, {1.0}).front();
        QCOMPARE(both.total(), int64_t(8));
        QVERIFY_EXCEPTION_THROWN(classifyForFp16(x, 0.0), std::invalid_argument);
        QVERIFY_EXCEPTION_THROWN(classifyForFp16(x, -2.0), std::invalid_argument);
        QVERIFY_EXCEPTION_THROWN(classifyForFp16(x, std::numeric_limits<double>::infinity()),
                                 std::invalid_argument);
    }

    void multipliersAskWhatIf() {
        // 2^-26 flushes as it is, survives scaled by 2 (2^-25 is the tie: still flushes), by 4.
        const auto x = floats({0x1p-26f, 40000.0f});
        const auto c = classifyForFp16(x, {1.0, 2.0, 4.0, 0.5});
        QCOMPARE(c[0].flushed, int64_t(1));
        QCOMPARE(c[0].normal, int64_t(1));
        QCOMPARE(c[1].flushed, int64_t(1));    // 2^-25: tie to 0
        QCOMPARE(c[1].overflow, int64_t(1));   // 80000
        QCOMPARE(c[2].subnormal, int64_t(1));  // 2^-24
        QCOMPARE(c[2].overflow, int64_t(1));
        QCOMPARE(c[3].flushed, int64_t(1));
        QCOMPARE(c[3].normal, int64_t(1));  // 20000
        // A value whose product overflows fp32 itself is an fp16 overflow too.
        const auto huge = classifyForFp16(floats({3e38f, 1e-30f, 1e-38f}), 0x1p100);
        QCOMPARE(huge.overflow, int64_t(1));
        QCOMPARE(huge.normal, int64_t(1));   // 1e-30 * 2^100 = 1.27
        QCOMPARE(huge.flushed, int64_t(1));  // 1e-38 * 2^100 = 1.3e-8 < 2^-25
    }

    void estimateFromHistogramMatchesExactUpToTheSlivers() {
        torch::manual_seed(3);
        // Gradients around 1e-5: a good part subnormal, some flushed.
        const auto x = torch::randn({1000000}) * 1e-5f;
        for (int shift : {0, 10, -3}) {
            const double m = std::ldexp(1.0, shift);
            const auto exact = classifyForFp16(x, m);
            const auto estimate = estimateFromHistogram(computeExponentHistogram(x), shift);
            QVERIFY(!estimate.exact);
            QCOMPARE(estimate.total(), exact.total());
            // The estimate is wrong exactly on the documented slivers (of the scaled values).
            const auto y = (x * static_cast<float>(m)).abs();
            const auto count = [](const torch::Tensor& mask) { return mask.sum().item<int64_t>(); };
            const int64_t tie = count(y.eq(0x1p-25f));
            const int64_t belowMinNormal = count(y.ge(0x1p-14f - 0x1p-25f) & y.lt(0x1p-14f));
            const int64_t belowTwoTo16 = count(y.ge(65520.0f) & y.lt(65536.0f));
            QCOMPARE(exact.flushed, estimate.flushed + tie);
            QCOMPARE(exact.subnormal, estimate.subnormal - tie - belowMinNormal);
            QCOMPARE(exact.normal, estimate.normal + belowMinNormal - belowTwoTo16);
            QCOMPARE(exact.overflow, estimate.overflow + belowTwoTo16);
            QVERIFY(exact.flushed > 0 && exact.subnormal > 0);
        }
        // A fractional shift (static scale 1000) splits straddling bins; the
        // classes still add up and land close to the exact counts.
        const auto exact = classifyForFp16(x, 1000.0);
        const auto estimate = estimateFromHistogram(computeExponentHistogram(x), std::log2(1000.0));
        QCOMPARE(estimate.total(), exact.total());
        const double n = static_cast<double>(exact.total());
        QVERIFY2(std::abs(estimate.flushed - exact.flushed) / n < 0.002,
                 qPrintable(describe(estimate) + " vs " + describe(exact)));
        QVERIFY2(std::abs(estimate.subnormal - exact.subnormal) / n < 0.005,
                 qPrintable(describe(estimate) + " vs " + describe(exact)));
    }

    void estimateBinsByHand() {
        ExponentHistogram h;
        const auto bin = [&](int e) -> int64_t& {
            return h.counts[static_cast<size_t>(e - kMinExponent)];
        };
        bin(-26) = 1;  // [2^-26, 2^-25): flushed
        bin(-25) = 2;  // [2^-25, 2^-24): rounds up to 2^-24 (but for the tie): subnormal
        bin(-15) = 3;  // subnormal
        bin(-14) = 4;  // normal
        bin(15) = 5;   // normal
        bin(16) = 6;   // overflow
        h.below = 7;
        h.above = 8;
        h.zero = 9;
        h.nan = 10;
        h.posInf = 11;
        h.negInf = 12;
        const auto c = estimateFromHistogram(h);
        QCOMPARE(c.flushed, int64_t(1 + 7));
        QCOMPARE(c.subnormal, int64_t(2 + 3));
        QCOMPARE(c.normal, int64_t(4 + 5));
        QCOMPARE(c.overflow, int64_t(6 + 8));
        QCOMPARE(c.zero, int64_t(9));
        QCOMPARE(c.nan, int64_t(10));
        QCOMPARE(c.inf, int64_t(23));
        // Scaled by 2: bin -26 moves to -25 (subnormal), bin 15 to 16 (overflow).
        const auto s = estimateFromHistogram(h, 1.0);
        QCOMPARE(s.flushed, int64_t(7));
        QCOMPARE(s.subnormal, int64_t(1 + 2));
        QCOMPARE(s.normal, int64_t(3 + 4));
        QCOMPARE(s.overflow, int64_t(5 + 6 + 8));
        QCOMPARE(s.total(), c.total());
        // Exact counts plus an estimate are an estimate; empty counts have no fraction of
        // anything (0, not 0 / 0).
        Fp16ClassCounts sum;
        QVERIFY(sum.exact);
        QVERIFY(sum.flushedFraction() == 0.0 && sum.nonFiniteFraction() == 0.0);
        sum += s;
        QVERIFY(!sum.exact);
    }

    // ---- tensor stats ----

    void tensorStatsKeepTheFiniteRange() {
        const auto x = floats({1.0f, -2.0f, kNaN, kInf, 3.0f, -kInf, kNaN, 0.5f});
        for (const auto& input : {x, x.to(torch::kHalf)}) {
            const auto s = computeTensorStats(input);
            QCOMPARE_BITS(s.min, -2.0);
            QCOMPARE_BITS(s.max, 3.0);
            QCOMPARE_BITS(s.mean, 2.5 / 4.0);
            QCOMPARE_BITS(s.absMax, 3.0);
            QCOMPARE(s.nan, int64_t(2));
            QCOMPARE(s.posInf, int64_t(1));
            QCOMPARE(s.negInf, int64_t(1));
            QCOMPARE(s.numel, int64_t(8));
            QVERIFY(!s.finite());
            const auto ops = probe_detail::tensorStatsSlotsWithTorchOps(input).contiguous();
            QVERIFY(sameStats(tensorStatsFromSlots(ops.data_ptr<double>()), s));
        }
        const auto allNaN = computeTensorStats(floats({kNaN, kNaN}));
        QVERIFY(std::isnan(allNaN.min) && std::isnan(allNaN.max) && std::isnan(allNaN.mean));
        QVERIFY(std::isnan(allNaN.absMax));
        QCOMPARE(allNaN.nan, int64_t(2));
        const auto empty = computeTensorStats(torch::empty({0}));
        QCOMPARE(empty.numel, int64_t(0));
        QVERIFY(empty.finite() && std::isnan(empty.min));
        const auto emptyOps =
            probe_detail::tensorStatsSlotsWithTorchOps(torch::empty({0})).contiguous();
        QVERIFY(sameStats(tensorStatsFromSlots(emptyOps.data_ptr<double>()), empty));
        const auto negative = computeTensorStats(floats({-5.0f, -1.0f}));
        QCOMPARE_BITS(negative.absMax, 5.0);
    }

    void tensorStatsOfALargeTensorMatchTorch() {
        torch::manual_seed(5);
        auto x = torch::randn({1000003}) * 3 + 1;
        x[17] = kNaN;
        x[99999] = -kInf;
        const auto s = computeTensorStats(x);
        const auto finite = x.index({torch::isfinite(x)});
        QCOMPARE_BITS(s.min, finite.min().item<double>());
        QCOMPARE_BITS(s.max, finite.max().item<double>());
        QVERIFY(std::abs(s.mean - finite.to(torch::kDouble).mean().item<double>()) < 1e-6);
        QCOMPARE(s.nan, int64_t(1));
        QCOMPARE(s.negInf, int64_t(1));
        QCOMPARE(s.finiteCount(), finite.numel());
        const auto counts = nonFiniteCountSlots(x).contiguous();
        const auto c = tensorStatsFromSlots(counts.data_ptr<double>());
        QCOMPARE(c.nan, int64_t(1));
        QCOMPARE(c.negInf, int64_t(1));
        QCOMPARE(c.numel, x.numel());
        const auto cOps = probe_detail::nonFiniteCountSlotsWithTorchOps(x).contiguous();
        QVERIFY(sameStats(tensorStatsFromSlots(cOps.data_ptr<double>()), c));
    }

    void everyNonFiniteIsFoundWhereverItSits() {
        // The CPU check relies on the vectorised min/max: a NaN or Inf in any
        // lane, in the tail, or in a tensor of any dtype must still show.
        for (const auto type : {torch::kFloat, torch::kHalf, torch::kBFloat16, torch::kDouble}) {
            for (int64_t n : {int64_t(1), int64_t(37), int64_t(100003)}) {
                for (int64_t at : {int64_t(0), int64_t(1), int64_t(7), int64_t(8), int64_t(15),
                                   int64_t(16), int64_t(31), n / 2, n - 1}) {
                    if (at >= n) continue;
                    for (const float bad : {kNaN, kInf, -kInf}) {
                        auto x = torch::randn({n}).to(type);
                        x[at] = bad;
                        for (const auto& slots : {nonFiniteCountSlots(x), tensorStatsSlots(x)}) {
                            const auto s =
                                tensorStatsFromSlots(slots.contiguous().data_ptr<double>());
                            QVERIFY2(s.nan == (std::isnan(bad) ? 1 : 0) &&
                                         s.posInf == (bad == kInf ? 1 : 0) &&
                                         s.negInf == (bad == -kInf ? 1 : 0) && s.numel == n,
                                     qPrintable(QString("%1 at %2 of %3, %4")
                                                    .arg(double(bad))
                                                    .arg(at)
                                                    .arg(n)
                                                    .arg(c10::toString(type))));
                        }
                    }
                }
            }
        }
    }

    void hugeFiniteValuesAreNotNonFinite() {
        // Their sum overflows (the fast check fails); the exact pass must clear them.
        auto x = torch::full({100000}, 3e38f);
        x.slice(0, 50000).fill_(-3e38f);
        for (const auto& slots : {nonFiniteCountSlots(x), tensorStatsSlots(x)}) {
            const auto s = tensorStatsFromSlots(slots.contiguous().data_ptr<double>());
            QVERIFY(s.finite());
            QCOMPARE(s.numel, x.numel());
        }
        QCOMPARE_BITS(computeTensorStats(x).max, double(3e38f));
    }

    // ---- one host copy for many results ----

    void readoutReadsEverythingAtOnce() {
        const auto g = floats({1.0f, 0x1p-30f, kNaN});
        ProbeReadout readout;
        const auto h = readout.add(histogramSlots(g));
        const auto c = readout.add(fp16ClassSlots(g, {1.0, 0x1p10}));
        const auto s = readout.add(tensorStatsSlots(g));
        readout.read();
        QCOMPARE(readout.size(h), histogram_slot::kCount);
        QCOMPARE(readout.size(c), 2 * fp16_class_slot::kCount);
        COMPARE_HISTOGRAMS(histogramFromSlots(readout.data(h)), computeExponentHistogram(g));
        const auto scaled = fp16ClassesFromSlots(readout.data(c) + fp16_class_slot::kCount);
        QCOMPARE(scaled.subnormal, int64_t(1));  // 2^-30 * 2^10 = 2^-20
        QCOMPARE(tensorStatsFromSlots(readout.data(s)).nan, int64_t(1));
        QVERIFY_EXCEPTION_THROWN(readout.add(g), std::logic_error);
        readout.clear();
        readout.read();
        QCOMPARE(readout.count(), size_t(0));
    }
};

QTEST_APPLESS_MAIN(ProbesTest)
#include "test_probes.moc"
