// Rounding used by fp16/tf32 emulation, against references written here from
// the IEEE 754 definitions (not from torch), on edge values and 10^6 random ones.
#include <QtTest/QtTest>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>

#include "ExactCompare.h"
#include "precision/Rounding.h"

using namespace ampscope;

namespace {

// Nearest binary16, ties to even: 11 significant bits, exponent >= -14, max 65504.
double referenceHalf(float value) {
    if (std::isnan(value) || std::isinf(value)) return value;
    const double v = value;
    if (v == 0.0) return v;  // keeps the sign of zero
    int exponent;
    std::frexp(std::fabs(v), &exponent);  // |v| in [2^(exponent-1), 2^exponent)
    const int e = std::max(exponent - 1, -14);
    const double quantum = std::ldexp(1.0, e - 10);
    std::fesetround(FE_TONEAREST);
    const double rounded = std::nearbyint(v / quantum) * quantum;  // v / quantum is exact
    if (std::fabs(rounded) > 65504.0) return std::copysign(INFINITY, v);
    if (rounded == 0.0) return std::copysign(0.0, v);
    return rounded;
}

// TF32: 10 explicit mantissa bits, fp32 exponent range, ties away from zero.
double referenceTf32(float value) {
    if (std::isnan(value) || std::isinf(value) || value == 0.0f) return value;
    const double v = value;
    int exponent;
    std::frexp(std::fabs(v), &exponent);
    const int e = std::max(exponent - 1, -126);
    const double quantum = std::ldexp(1.0, e - 10);
    const double rounded = std::round(v / quantum) * quantum;
    if (std::fabs(rounded) > static_cast<double>(std::numeric_limits<float>::max()))
        return std::copysign(INFINITY, v);
    return rounded;
}

bool sameValue(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

class RoundingTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void halfEdgeValues_data() {
        QTest::addColumn<float>("input");
        QTest::addColumn<double>("expected");
        const double tiny = std::ldexp(1.0, -24);
        QTest::newRow("2^-25 ties to even: 0") << std::ldexp(1.0f, -25) << 0.0;
        QTest::newRow("just above 2^-25: 2^-24") << std::nextafter(std::ldexp(1.0f, -25), 1.0f) << tiny;
        QTest::newRow("2^-24 smallest subnormal") << std::ldexp(1.0f, -24) << tiny;
        QTest::newRow("1.5 * 2^-24 ties to even: 2^-23") << 1.5f * std::ldexp(1.0f, -24) << 2 * tiny;
        QTest::newRow("3 * 2^-24 subnormal exact") << 3.0f * std::ldexp(1.0f, -24) << 3 * tiny;
        QTest::newRow("2^-14 smallest normal") << std::ldexp(1.0f, -14) << std::ldexp(1.0, -14);
        QTest::newRow("65504 max") << 65504.0f << 65504.0;
        QTest::newRow("65519 rounds down") << 65519.0f << 65504.0;
        QTest::newRow("65520 overflows") << 65520.0f << double(INFINITY);
        QTest::newRow("-65520 overflows") << -65520.0f << double(-INFINITY);
        QTest::newRow("+0") << 0.0f << 0.0;
        QTest::newRow("-0") << -0.0f << -0.0;
        QTest::newRow("1 + 2^-11 ties to even: 1") << 1.0f + std::ldexp(1.0f, -11) << 1.0;
        QTest::newRow("1 + 3*2^-11 ties to even: 1 + 2^-9") << 1.0f + 3 * std::ldexp(1.0f, -11)
                                                              << 1.0 + std::ldexp(1.0, -9);
        QTest::newRow("+inf") << float(INFINITY) << double(INFINITY);
        QTest::newRow("-inf") << float(-INFINITY) << double(-INFINITY);
        QTest::newRow("nan") << float(NAN) << double(NAN);
    }
    void halfEdgeValues() {
        QFETCH(float, input);
        QFETCH(double, expected);
        QVERIFY(sameValue(referenceHalf(input), expected));  // the reference itself
        const double got = roundToHalf(torch::tensor({input})).item<float>();
        QVERIFY2(sameValue(got, expected),
                 qPrintable(QString("%1 -> %2, expected %3").arg(input).arg(got).arg(expected)));
    }

    void halfMatchesReferenceOnRandomValues() {
        std::mt19937 rng(12345);
        std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
        std::uniform_int_distribution<int> exponent(-30, 17);  // across subnormal..overflow
        std::vector<float> values(1000000);
        for (auto& v : values) v = (rng() & 1 ? -1.0f : 1.0f) * std::ldexp(mantissa(rng), exponent(rng));
        auto rounded = roundToHalf(torch::from_blob(values.data(), {int64_t(values.size())}).clone());
        auto r = rounded.accessor<float, 1>();
        int64_t mismatches = 0;
        for (size_t i = 0; i < values.size(); ++i)
            if (!sameValue(r[int64_t(i)], referenceHalf(values[i]))) ++mismatches;
        QCOMPARE(mismatches, int64_t(0));
    }

    void tf32EdgeValues_data() {
        QTest::addColumn<float>("input");
        QTest::addColumn<float>("expected");
        const float one = 1.0f;
        const float halfUlp = std::ldexp(1.0f, -11);  // tf32 ulp at 1 is 2^-10
        const float quantum = std::ldexp(1.0f, -136);  // fp32 subnormals keep 10 bits: 2^-136
        QTest::newRow("1 + half an ulp: tie away from zero") << one + halfUlp << one + 2 * halfUlp;
        QTest::newRow("-(1 + half an ulp): tie away from zero") << -(one + halfUlp) << -(one + 2 * halfUlp);
        QTest::newRow("just under the tie: down") << one + halfUlp * 0.99f << one;
        QTest::newRow("fp32 max overflows") << std::numeric_limits<float>::max() << float(INFINITY);
        QTest::newRow("-inf") << float(-INFINITY) << float(-INFINITY);
        QTest::newRow("2^-130 subnormal kept") << std::ldexp(1.0f, -130) << std::ldexp(1.0f, -130);
        QTest::newRow("3 * 2^-138 to the nearest subnormal 2^-136") << 3 * std::ldexp(1.0f, -138) << quantum;
        QTest::newRow("2^-137 tie away from zero: 2^-136") << std::ldexp(1.0f, -137) << quantum;
        QTest::newRow("2^-140 flushes to +0") << std::ldexp(1.0f, -140) << 0.0f;
        QTest::newRow("-2^-140 flushes to -0") << -std::ldexp(1.0f, -140) << -0.0f;
    }
    void tf32EdgeValues() {
        QFETCH(float, input);
        QFETCH(float, expected);
        QCOMPARE_BITS(static_cast<float>(referenceTf32(input)), expected);  // the reference itself
        QCOMPARE_BITS(roundToTf32(input), expected);
        QCOMPARE_BITS(roundToTf32(torch::tensor({input})).item<float>(), expected);
    }

    void tf32KeepsNan() { QVERIFY(std::isnan(roundToTf32(float(NAN)))); }

    void tf32TensorMatchesReference() {
        std::mt19937 rng(99);
        std::uniform_int_distribution<uint32_t> bits;
        std::vector<float> values(1000000);
        for (auto& v : values) {
            uint32_t b = bits(rng);
            std::memcpy(&v, &b, sizeof v);
        }
        auto rounded = roundToTf32(torch::from_blob(values.data(), {int64_t(values.size())}).clone());
        auto r = rounded.accessor<float, 1>();
        int64_t mismatches = 0;
        for (size_t i = 0; i < values.size(); ++i) {
            if (!sameValue(r[int64_t(i)], referenceTf32(values[i]))) ++mismatches;
            if (!sameValue(r[int64_t(i)], roundToTf32(values[i]))) ++mismatches;
        }
        QCOMPARE(mismatches, int64_t(0));
    }

    // bfloat16 is fp32 with 7 fraction bits (the same 8-bit exponent), rounded to nearest,
    // ties to even: values where fp16 would give other bits (more fraction bits, a smaller
    // range) or where the tie goes down and up.
    void bfloat16EdgeValues() {
        const auto x = torch::tensor({1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-10f, 70000.0f, 1e-30f});
        const auto r = roundTo(x, Rounding::BFloat16);
        QCOMPARE_BITS(r[0].item<float>(), 1.0f);            // tie: the even 1
        QCOMPARE_BITS(r[1].item<float>(), 1.0f + 0x1p-6f);  // tie: the even 1 + 2^-6
        QCOMPARE_BITS(r[2].item<float>(), 1.0f);            // under half a step
        QCOMPARE_BITS(r[3].item<float>(), 70144.0f);        // 1.0001000101110000b x 2^16 -> 1.0001001b x 2^16
        QCOMPARE_BITS(r[4].item<float>(), 0x1.44p-100f);     // normal in bf16, zero in fp16
    }

    // The backward of a rounding point rounds the incoming gradient to fp16: rows where
    // rounding, flushing and passing through each give different bits.
    void gradientIsRoundedInBackward_data() {
        QTest::addColumn<float>("incoming");
        QTest::addColumn<float>("expected");
        QTest::newRow("2^-26, under half the smallest subnormal: +0") << std::ldexp(1.0f, -26) << 0.0f;
        QTest::newRow("-2^-26: -0") << -std::ldexp(1.0f, -26) << -0.0f;
        QTest::newRow("3 * 2^-26: the nearest subnormal 2^-24") << 3 * std::ldexp(1.0f, -26)
                                                                  << std::ldexp(1.0f, -24);
        QTest::newRow("2^-20, a subnormal: kept") << std::ldexp(1.0f, -20) << std::ldexp(1.0f, -20);
        QTest::newRow("1 + 2^-12: ten mantissa bits, 1") << 1.0f + std::ldexp(1.0f, -12) << 1.0f;
        QTest::newRow("70000: past fp16's max, inf") << 70000.0f << float(INFINITY);
    }
    void gradientIsRoundedInBackward() {
        QFETCH(float, incoming);
        QFETCH(float, expected);
        auto x = torch::ones({4}, torch::requires_grad());
        (roundWithGradient(x, Rounding::Half, Rounding::Half) * incoming).sum().backward();
        for (int64_t i = 0; i < 4; ++i) QCOMPARE_BITS(x.grad()[i].item<float>(), expected);
    }
};

QTEST_APPLESS_MAIN(RoundingTest)
#include "test_rounding.moc"
