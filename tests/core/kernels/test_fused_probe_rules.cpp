// The per-element rules of the fused CUDA probe (core/kernels/ProbeElementRules.h),
// compiled here by g++ exactly as nvcc compiles them into the kernel, checked against
// the LibTorch probes they must agree with: the exponent histogram
// (HistogramProbe) and the fp16 classes (Fp16Classifier), on both of their paths (the
// single-pass CPU loop and the torch-ops path that CUDA tensors take without the
// kernel). Runs everywhere, no GPU needed.
#include <QtTest/QtTest>
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ExactCompare.h"
#include "WideRandomGradients.h"
#include "kernels/ProbeElementRules.h"
#include "probes/Fp16Classifier.h"
#include "probes/GradientProbe.h"
#include "probes/HistogramProbe.h"

using namespace ampscope;
namespace rules = ampscope::probe_rules;

namespace {

// What the kernel computes, element by element with the header's functions, in its
// output layout: the histogram, then 8 class counters per multiplier.
std::vector<int64_t> countWithRules(const torch::Tensor& values, const std::vector<double>& multipliers) {
    std::vector<rules::Fp16Plan> plans;
    for (double m : multipliers) plans.push_back(rules::planFp16(m));
    std::vector<int64_t> counts(static_cast<size_t>(rules::fusedSlotCount(static_cast<int>(plans.size()))), 0);
    const auto t = values.contiguous();
    const auto count = [&](float x) {
        ++counts[static_cast<size_t>(rules::histogramSlot(rules::floatBits(x)))];
        for (size_t p = 0; p < plans.size(); ++p)
            ++counts[rules::kHistogramSlots + p * rules::kClassCount +
                     static_cast<size_t>(rules::fp16Class(x, plans[p]))];
    };
    const int64_t n = t.numel();
    if (t.scalar_type() == torch::kFloat) {
        const float* data = t.data_ptr<float>();
        for (int64_t i = 0; i < n; ++i) count(data[i]);
    } else {
        // The raw 16-bit patterns, widened by the header as the kernel widens them.
        const auto* raw = reinterpret_cast<const uint16_t*>(t.data_ptr());
        const bool half = t.scalar_type() == torch::kHalf;
        for (int64_t i = 0; i < n; ++i)
            count(half ? rules::halfBitsToFloat(raw[i]) : rules::bfloat16BitsToFloat(raw[i]));
    }
    return counts;
}

// Compares the rules' counts with LibTorch slots (histogram [103], classes [m, 7]).
void expectSame(const std::vector<int64_t>& counts, const torch::Tensor& histogram, const torch::Tensor& classes,
                const char* path) {
    const auto h = histogram.to(torch::kCPU).contiguous();
    const auto c = classes.to(torch::kCPU).contiguous();
    for (int64_t k = 0; k < rules::kHistogramSlots; ++k)
        QVERIFY2(h.data_ptr<double>()[k] == static_cast<double>(counts[static_cast<size_t>(k)]),
                 qPrintable(QString("%1: histogram slot %2: LibTorch %3, rules %4")
                                .arg(path).arg(k).arg(h.data_ptr<double>()[k]).arg(counts[static_cast<size_t>(k)])));
    for (int64_t p = 0; p < c.size(0); ++p) {
        const double* row = c.data_ptr<double>() + p * fp16_class_slot::kCount;
        const int64_t* mine = counts.data() + rules::kHistogramSlots + p * rules::kClassCount;
        for (int64_t k = 0; k < rules::kClassPosInf; ++k)
            QVERIFY2(row[k] == static_cast<double>(mine[k]),
                     qPrintable(QString("%1: multiplier %2, class %3: LibTorch %4, rules %5")
                                    .arg(path).arg(p).arg(k).arg(row[k]).arg(mine[k])));
        QCOMPARE_BITS(row[fp16_class_slot::kInf], static_cast<double>(mine[rules::kClassPosInf] + mine[rules::kClassNegInf]));
        // The split of inf agrees with the histogram's.
        QCOMPARE(mine[rules::kClassPosInf], counts[rules::kPosInfSlot]);
        QCOMPARE(mine[rules::kClassNegInf], counts[rules::kNegInfSlot]);
    }
}

void expectSameAsLibTorch(const torch::Tensor& values, const std::vector<double>& multipliers) {
    const auto counts = countWithRules(values, multipliers);
    expectSame(counts, histogramSlots(values), fp16ClassSlots(values, multipliers), "CPU loop");
    if (QTest::currentTestFailed()) return;
    expectSame(counts, probe_detail::histogramSlotsWithTorchOps(values),
               probe_detail::fp16ClassSlotsWithTorchOps(values, multipliers), "torch ops");
}

float below(float x) { return std::nextafter(x, 0.0f); }
float above(float x) { return std::nextafter(x, std::numeric_limits<float>::infinity()); }

torch::Tensor wideRandom(int64_t n, uint64_t seed) {
    return wideRandomGradients(n, seed, 97);
}

const std::vector<std::vector<double>>& multiplierSets() {
    static const std::vector<std::vector<double>> sets = {
        {1.0},
        {32768.0, 65536.0, 131072.0},     // what-if around a dynamic scale
        {1000.0, 3.0, 0x1p-20, 0x1p100},  // static scales: the product is formed
        {0x1p126, 0x1p127, 0x1p128},      // the last growth leaves float's range
    };
    return sets;
}

}  // namespace

class FusedProbeRulesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The kernel widens 16-bit inputs with the header's conversion: every pattern must
    // give the float c10 gives (NaNs: a NaN).
    void halfConversionMatchesC10OnAllPatterns() {
        for (uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
            const float mine = rules::halfBitsToFloat(static_cast<uint16_t>(bits));
            const float c10 = static_cast<float>(c10::Half(static_cast<uint16_t>(bits), c10::Half::from_bits()));
            if (std::isnan(c10)) {
                QVERIFY2(std::isnan(mine), qPrintable(QString("half 0x%1").arg(bits, 4, 16, QChar('0'))));
                continue;
            }
            QVERIFY2(rules::floatBits(mine) == rules::floatBits(c10),
                     qPrintable(QString("half 0x%1: %2 vs %3").arg(bits, 4, 16, QChar('0')).arg(mine).arg(c10)));
        }
    }

    void bfloat16ConversionMatchesC10OnAllPatterns() {
        for (uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
            const float mine = rules::bfloat16BitsToFloat(static_cast<uint16_t>(bits));
            const float c10 = static_cast<float>(c10::BFloat16(static_cast<uint16_t>(bits), c10::BFloat16::from_bits()));
            if (std::isnan(c10)) {
                QVERIFY(std::isnan(mine));
                continue;
            }
            QCOMPARE(rules::floatBits(mine), rules::floatBits(c10));
        }
    }

    // Hand-computed slots and classes at the edges of the fp16 range (DESIGN.md's fp16
    // facts), and LibTorch's probes must say the same for each value alone.
    void edgeValuesAgreeWithHandComputedClasses() {
        struct Edge {
            float x;
            int slot;   // histogram slot (exponent + 64, or a named slot)
            int klass;  // fp16 class at multiplier 1
        };
        const float denormal = std::numeric_limits<float>::denorm_min();
        const Edge edges[] = {
            {65504.0f, 15 + 64, rules::kClassNormal},           // fp16 max
            {below(65520.0f), 15 + 64, rules::kClassNormal},    // rounds down to 65504
            {65520.0f, 15 + 64, rules::kClassOverflow},         // the tie rounds to inf
            {-65520.0f, 15 + 64, rules::kClassOverflow},
            {65536.0f, 16 + 64, rules::kClassOverflow},
            {0x1p-14f, -14 + 64, rules::kClassNormal},          // smallest normal
            {0x1p-14f - 0x1p-25f, -15 + 64, rules::kClassNormal},  // rounds up to 2^-14
            {below(0x1p-14f - 0x1p-25f), -15 + 64, rules::kClassSubnormal},
            {0x1p-24f, -24 + 64, rules::kClassSubnormal},       // smallest subnormal
            {-0x1p-24f, -24 + 64, rules::kClassSubnormal},
            {above(0x1p-25f), -25 + 64, rules::kClassSubnormal},  // rounds up to 2^-24
            {0x1p-25f, -25 + 64, rules::kClassFlushed},         // the tie goes to 0 (even)
            {0x1p-26f, -26 + 64, rules::kClassFlushed},
            {0x1p-64f, 0, rules::kClassFlushed},                // the lowest bin
            {below(0x1p-64f), rules::kBelowSlot, rules::kClassFlushed},
            {denormal, rules::kBelowSlot, rules::kClassFlushed},   // fp32 subnormals
            {-1e-40f, rules::kBelowSlot, rules::kClassFlushed},
            {0x1p32f, 96, rules::kClassOverflow},               // the highest bin
            {0x1p33f, rules::kAboveSlot, rules::kClassOverflow},
            {std::numeric_limits<float>::max(), rules::kAboveSlot, rules::kClassOverflow},
            {1.0f, 64, rules::kClassNormal},
            {below(1.0f), 63, rules::kClassNormal},             // just below a power of two
            {0.0f, rules::kZeroSlot, rules::kClassZero},
            {-0.0f, rules::kZeroSlot, rules::kClassZero},
            {std::nanf(""), rules::kNanSlot, rules::kClassNan},
            {-std::nanf(""), rules::kNanSlot, rules::kClassNan},
            {INFINITY, rules::kPosInfSlot, rules::kClassPosInf},
            {-INFINITY, rules::kNegInfSlot, rules::kClassNegInf},
        };
        const rules::Fp16Plan identity = rules::planFp16(1.0);
        for (const Edge& e : edges) {
            const QString what = QString("x = %1 (0x%2)").arg(double(e.x), 0, 'g', 9).arg(rules::floatBits(e.x), 8, 16, QChar('0'));
            QVERIFY2(rules::histogramSlot(rules::floatBits(e.x)) == e.slot, qPrintable(what + ": histogram slot"));
            QVERIFY2(rules::fp16Class(e.x, identity) == e.klass, qPrintable(what + ": fp16 class"));
            expectSameAsLibTorch(torch::tensor({e.x}), {1.0, 2.0, 0.5, 1000.0});
            if (QTest::currentTestFailed()) QFAIL(qPrintable(what));
        }
    }

    // A power-of-two multiplier moves the limits; others form the fp32 product. Both
    // are what a scaled gradient would meet in fp16.
    void multipliersMoveTheLimitsAsAProductWould() {
        const auto plan = rules::planFp16(65536.0);
        QVERIFY(!plan.multiply);
        QCOMPARE(rules::fp16Class(0x1p-41f, plan), rules::kClassFlushed);     // 2^-41 * 2^16 = 2^-25
        QCOMPARE(rules::fp16Class(above(0x1p-41f), plan), rules::kClassSubnormal);
        QCOMPARE(rules::fp16Class(1.0f, plan), rules::kClassOverflow);         // 2^16 >= 65520
        QCOMPARE(rules::fp16Class(0.999f, plan), rules::kClassNormal);          // 65470.5
        const auto product = rules::planFp16(1000.0);
        QVERIFY(product.multiply);
        // The product is rounded to fp32 first: 65.52f * 1000 is 65519.996 (normal), the
        // next float up gives 65520.004 (overflow).
        QCOMPARE(rules::fp16Class(65.52f, product), rules::kClassNormal);
        QCOMPARE(rules::fp16Class(above(65.52f), product), rules::kClassOverflow);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rules::planFp16(0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rules::planFp16(std::nan("")));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rules::planFp16(1e300));  // beyond fp32, not a power of two
    }

    void randomFloat32TensorsAgree() {
        const auto x = wideRandom(200003, 11);
        for (const auto& multipliers : multiplierSets()) {
            expectSameAsLibTorch(x, multipliers);
            if (QTest::currentTestFailed()) return;
        }
    }

    // 16-bit inputs are counted exactly as stored (not rounded again).
    void randomHalfAndBfloat16TensorsAgree() {
        const auto x = wideRandom(100003, 12);
        for (const auto type : {torch::kHalf, torch::kBFloat16}) {
            const auto t = x.to(type);
            for (const auto& multipliers : multiplierSets()) {
                expectSameAsLibTorch(t, multipliers);
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    // Without the kernel (CPU tensors, or a build without it), gradientProbeSlots is the
    // two probes one after the other; a layer's tensors count as one.
    void gradientProbeSlotsOnCpuAreTheTwoProbes() {
        const auto a = wideRandom(5001, 13);
        const auto b = wideRandom(777, 14).to(torch::kBFloat16);
        const std::vector<double> multipliers = {0.5, 1.0, 2.0};
        const auto slots = gradientProbeSlots({a, torch::Tensor(), b}, multipliers);
        QVERIFY(torch::equal(slots.histogram, histogramSlots(a) + histogramSlots(b)));
        QVERIFY(torch::equal(slots.classes, fp16ClassSlots(a, multipliers) + fp16ClassSlots(b, multipliers)));
        auto counts = countWithRules(a, multipliers);
        const auto more = countWithRules(b, multipliers);
        for (size_t k = 0; k < counts.size(); ++k) counts[k] += more[k];
        expectSame(counts, slots.histogram, slots.classes, "gradientProbeSlots");
        QCOMPARE(gradientProbeSlots({a}, {}).classes.size(0), int64_t{0});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gradientProbeSlots({a}, {1.0, 2.0, 4.0, 8.0, 16.0}));
    }
};

QTEST_GUILESS_MAIN(FusedProbeRulesTest)
#include "test_fused_probe_rules.moc"
