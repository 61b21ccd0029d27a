// The low-precision formats against their definitions: every code of e4m3,
// e5m2 and e2m1 against values computed here from the bit fields of the OCP
// 8-bit Floating Point Specification (OFP8) and the OCP Microscaling Formats
// (MX) v1.0 Specification (e2m1 written out by hand), round to nearest even at
// every midpoint, saturation, subnormals, signed zero, e8m0's two rules, and
// stochastic rounding's mean.
#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "ExactCompare.h"
#include "precision/BlockLayout.h"
#include "precision/formats/FormatSweep.h"
#include "precision/formats/FormatTable.h"
#include "precision/formats/ScalarCodec.h"
#include "precision/formats/ScalingRules.h"
#include "precision/formats/TensorQuantizers.h"
#include "precision/formats/UniformDraws.h"
#include "precision/formats/ValueInFormats.h"

using namespace ampscope;

namespace {

// Value of an 8-bit code from the OFP8 definition, written independently of
// the codec: (-1)^S * 2^(E - bias) * (1 + M / 2^m) for E > 0, and
// (-1)^S * 2^(1 - bias) * (M / 2^m) for E = 0; e4m3: only S.1111.111 is NaN;
// e5m2: E = 31 is Inf (M = 0) or NaN.
double ofp8Value(uint32_t code, bool e4m3) {
    const int mBits = e4m3 ? 3 : 2;
    const int bias = e4m3 ? 7 : 15;
    const uint32_t eMask = e4m3 ? 0xF : 0x1F;
    const double sign = (code & 0x80) ? -1.0 : 1.0;
    const uint32_t E = (code >> mBits) & eMask;
    const uint32_t M = code & ((1u << mBits) - 1);
    if (e4m3 && E == 0xF && M == 7) return std::nan("");
    if (!e4m3 && E == 0x1F) return M == 0 ? sign * INFINITY : std::nan("");
    const double fraction = static_cast<double>(M) / static_cast<double>(1u << mBits);
    if (E == 0) return sign * std::pow(2.0, 1 - bias) * fraction;
    return sign * std::pow(2.0, static_cast<double>(E) - bias) * (1.0 + fraction);
}

// e2m1, written out: codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6; 8..15 their negatives.
const double kE2m1[16] = {0.0,  0.5,  1.0,  1.5,  2.0,  3.0,  4.0,  6.0,
                          -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0};

bool sameValue(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

uint32_t codeOf(NumberFormat f, double v, OverflowPolicy p = OverflowPolicy::Saturate) {
    const auto code = encode(f, v, p);
    return code ? *code : 0xDEADu;
}

// Positive finite codes of a format in increasing order of value.
std::vector<uint32_t> positiveFiniteCodes(NumberFormat f) {
    const int bits = describe(f).bits;
    std::vector<uint32_t> codes;
    for (uint32_t c = 0; c < (1u << (bits - 1)); ++c)
        if (std::isfinite(decode(f, c))) codes.push_back(c);
    return codes;
}

// Values over fp32's whole range with the edge cases mixed in: zeros of both
// signs, NaN, +-Inf, exact ties of e4m3/e5m2/e2m1, values just past their maxima.
torch::Tensor wideRandomValues(int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> exponent(-40.0, 40.0);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::vector<float> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(unit(rng) * std::exp2(exponent(rng))));
    const float specials[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 464.0f, 465.0f, -480.0f, 61440.0f,
                              5.0f, 7.0f, 0.25f, 0.75f, 1.0f / 1024, 3.0f / 1024, 65520.0f, 1e38f, 1e-40f, 3.4028235e38f, -3.4e38f};
    for (size_t i = 0; i < sizeof specials / sizeof *specials; ++i) v[i * 7 % v.size()] = specials[i];
    return torch::from_blob(v.data(), {n}, torch::kFloat).clone();
}

// Element-wise equality as values: NaN equals NaN, and zeros must agree in sign.
QString firstMismatch(const torch::Tensor& got, const std::vector<float>& expected) {
    const auto g = got.contiguous();
    const float* p = g.data_ptr<float>();
    for (size_t i = 0; i < expected.size(); ++i)
        if (!sameValue(p[i], expected[i]))
            return QString("element %1: %2 vs %3").arg(i).arg(p[i], 0, 'g', 9).arg(expected[i], 0, 'g', 9);
    return {};
}

// Every field of two statistics; empty when equal. Counts, amaxes and scales exactly;
// the double sums exactly where both summed the same elements in the same order (fixed
// chunks in element order: the CPU passes, and the torch path on a contiguous result),
// else to double rounding (the torch path reads a padded block tensor through torch's
// own reductions, which add in another order).
QString statsMismatch(const QuantizationStats& got, const QuantizationStats& expected, bool sameOrder = true) {
    auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    auto close = [&](double a, double b) { return same(a, b) || std::abs(a - b) <= 1e-12 * std::abs(b); };
    QStringList wrong;
    auto field = [&](const char* name, double a, double b) {
        if (!same(a, b)) wrong << QString("%1 %2 vs %3").arg(name).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17);
    };
    field("elements", got.elements, expected.elements);
    field("nonZero", got.nonZero, expected.nonZero);
    field("underflowed", got.underflowed, expected.underflowed);
    field("saturated", got.saturated, expected.saturated);
    field("nonFinite", got.nonFinite, expected.nonFinite);
    auto sum = [&](const char* name, double a, double b) {
        if (!(sameOrder ? same(a, b) : close(a, b)))
            wrong << QString("%1 %2 vs %3").arg(name).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17);
    };
    sum("squaredError", got.squaredError, expected.squaredError);
    sum("squaredSignal", got.squaredSignal, expected.squaredSignal);
    sum("magnitudeError", got.magnitudeError, expected.magnitudeError);
    sum("absoluteSignal", got.absoluteSignal, expected.absoluteSignal);
    field("amax", got.amax, expected.amax);
    field("scaleAmax", got.scaleAmax, expected.scaleAmax);
    field("scale", got.scale, expected.scale);
    field("blocks", got.blocks, expected.blocks);
    field("zeroScaleBlocks", got.zeroScaleBlocks, expected.zeroScaleBlocks);
    field("crushedByOutlier", got.crushedByOutlier, expected.crushedByOutlier);
    if (got.blockScaleExponents != expected.blockScaleExponents) wrong << "blockScaleExponents";
    return wrong.join(", ");
}

std::vector<float> toVector(const torch::Tensor& t) {
    const auto c = t.to(torch::kFloat).contiguous();
    return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

float scalarRound(NumberFormat f, float v, OverflowPolicy p = OverflowPolicy::Saturate, double u = -1.0) {
    const auto code = u < 0 ? encode(f, v, p) : encodeStochastic(f, v, u, p);
    return code ? static_cast<float>(decode(f, *code)) : NAN;
}

}  // namespace

class FormatsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ---- the table ----------------------------------------------------------------
    void tableHoldsThePublishedLimits() {
        // Published values: IEEE 754 binary16, bfloat16, OFP8 (Table 1), MX v1.0 (Tables 1, 2).
        struct Row { NumberFormat f; double max, minNormal, minSub; int bits; };
        const Row rows[] = {
            {NumberFormat::Fp16, 65504.0, 0x1p-14, 0x1p-24, 16},
            {NumberFormat::Bf16, 0x1.fep127, 0x1p-126, 0x1p-133, 16},  // max (2 - 2^-7) * 2^127
            {NumberFormat::E4M3, 448.0, 0x1p-6, 0x1p-9, 8},
            {NumberFormat::E5M2, 57344.0, 0x1p-14, 0x1p-16, 8},
            {NumberFormat::E2M1, 6.0, 1.0, 0.5, 4},
            {NumberFormat::E8M0, 0x1p127, 0x1p-127, 0.0, 8},  // no subnormals: 0 is "none"
        };
        QCOMPARE(static_cast<int>(formatTable().size()), 6);
        for (const Row& r : rows) {
            const FormatDescription& d = describe(r.f);
            QCOMPARE_BITS(d.maxFinite, r.max);
            QCOMPARE_BITS(d.minNormal, r.minNormal);
            QCOMPARE_BITS(d.minSubnormal, r.minSub);
            QCOMPARE(d.bits, r.bits);
            QCOMPARE(formatFromName(d.name), std::optional<NumberFormat>(r.f));
        }
        // The limits agree with the codes: largest finite, smallest normal, smallest subnormal.
        QCOMPARE_BITS(decode(NumberFormat::E4M3, 0x7E), 448.0);
        QCOMPARE_BITS(decode(NumberFormat::E5M2, 0x7B), 57344.0);
        QCOMPARE_BITS(decode(NumberFormat::E2M1, 0x7), 6.0);
        QCOMPARE_BITS(decode(NumberFormat::Fp16, 0x7BFF), 65504.0);
        QCOMPARE_BITS(decode(NumberFormat::Bf16, 0x7F7F), describe(NumberFormat::Bf16).maxFinite);
        QCOMPARE_BITS(decode(NumberFormat::Bf16, 0x0001), std::ldexp(1.0, -133));
        QCOMPARE(describe(NumberFormat::E4M3).maxExponent(), 8);
        QCOMPARE(describe(NumberFormat::E5M2).maxExponent(), 15);
        QCOMPARE(describe(NumberFormat::E2M1).maxExponent(), 2);
        QVERIFY(!formatFromName("fp8"));
        QVERIFY(!formatFromName("E4M3"));
        QCOMPARE(formatNames(), std::string("fp16, bf16, e4m3, e5m2, e2m1, e8m0"));
    }

    // ---- every code ---------------------------------------------------------------
    // One value in every format (the Format explorer's rows), worked out by hand.
    void valueInEveryFormat() {
        const std::vector<ValueCast> casts = castToEveryFormat(0.1);
        QCOMPARE(casts.size(), std::size_t{6});
        QCOMPARE(casts[0].format, std::string("fp32"));
        // fp32: 0.1 = 1.6 x 2^-4, exponent 123, mantissa round(0.6 x 2^23) = 5033165.
        QCOMPARE(*casts[0].bits, uint32_t{0x3dcccccd});
        QCOMPARE_BITS(casts[0].value, 13421773.0 / 134217728.0);
        QCOMPARE(bitFields(*casts[0].bits, 8, 23), std::string("0 01111011 10011001100110011001101"));
        QCOMPARE(hexCode(*casts[0].bits, 32), std::string("0x3dcccccd"));
        QCOMPARE(casts[1].format, std::string("fp16"));
        QCOMPARE(*casts[1].bits, uint32_t{0x2e66});
        QCOMPARE_BITS(casts[1].value, 0.0999755859375);
        QCOMPARE(casts[1].outcome, CastOutcome::Rounded);
        QCOMPARE(hexCode(*casts[1].bits, 16), std::string("0x2e66"));
        // e2m1: 0.1 is below half its smallest subnormal 0.5: flushed.
        QCOMPARE(casts[5].format, std::string("e2m1"));
        QCOMPARE_BITS(casts[5].value, 0.0);
        QCOMPARE(casts[5].outcome, CastOutcome::Flushed);
        QCOMPARE(hexCode(*casts[5].bits, 4), std::string("0x0"));

        QCOMPARE(castTo("fp32", 1e39).outcome, CastOutcome::Overflow);  // past FLT_MAX: inf
        QCOMPARE(castTo("fp16", 1e5).outcome, CastOutcome::Saturated);
        QCOMPARE_BITS(castTo("fp16", 1e5).value, 65504.0);
        QCOMPARE(castTo("fp16", 0x1p-20).outcome, CastOutcome::Exact);  // a subnormal code
        QCOMPARE(castTo("fp16", 3.0 * 0x1p-26).outcome, CastOutcome::Subnormal);  // -> 2^-24
        QCOMPARE(castTo("e2m1", std::nan("")).outcome, CastOutcome::NoCode);
        QCOMPARE(castTo("e4m3", std::nan("")).outcome, CastOutcome::NotANumber);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, castTo("e8m0", 1.0));

        // 300 under 2^6 in e2m1: 4.6875 -> 4 (0x6), times 64 = 256; e8m0 code 133.
        const BlockScaledCast block = castUnderBlockScale(NumberFormat::E2M1, 6, 300.0);
        QCOMPARE(block.scaleBits, uint32_t{133});
        QCOMPARE(*block.element.bits, uint32_t{0x6});
        QCOMPARE_BITS(block.element.value, 4.0);
        QCOMPARE_BITS(block.value, 256.0);
        QCOMPARE_BITS(castUnderBlockScale(NumberFormat::E4M3, -127, 0x1p-127).value, 0x1p-127);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, castUnderBlockScale(NumberFormat::E4M3, 128, 1.0));
    }

    void everyE4m3CodeDecodes() {
        int nans = 0;
        for (uint32_t c = 0; c < 256; ++c) {
            const double expected = ofp8Value(c, true);
            const double got = decode(NumberFormat::E4M3, c);
            QVERIFY2(sameValue(got, expected), qPrintable(QString("code 0x%1: %2 vs %3")
                                                              .arg(c, 2, 16, QChar('0')).arg(got).arg(expected)));
            nans += std::isnan(got);
            // Every finite code is its own encoding (round trip), -0 included.
            if (!std::isnan(got)) QCOMPARE(codeOf(NumberFormat::E4M3, got), c);
        }
        QCOMPARE(nans, 2);  // 0x7F and 0xFF only
        QCOMPARE_BITS(decode(NumberFormat::E4M3, 0x08), 0.015625);   // smallest normal 2^-6
        QCOMPARE_BITS(decode(NumberFormat::E4M3, 0x07), 0.013671875);  // largest subnormal 7 * 2^-9
        QCOMPARE_BITS(decode(NumberFormat::E4M3, 0x7D), 416.0);
    }

    void everyE5m2CodeDecodes() {
        int nans = 0, infs = 0;
        for (uint32_t c = 0; c < 256; ++c) {
            const double expected = ofp8Value(c, false);
            const double got = decode(NumberFormat::E5M2, c);
            QVERIFY2(sameValue(got, expected), qPrintable(QString("code 0x%1: %2 vs %3")
                                                              .arg(c, 2, 16, QChar('0')).arg(got).arg(expected)));
            nans += std::isnan(got);
            infs += std::isinf(got);
            if (std::isfinite(got)) QCOMPARE(codeOf(NumberFormat::E5M2, got), c);
        }
        QCOMPARE(nans, 6);  // 0x7D..0x7F, 0xFD..0xFF
        QCOMPARE(infs, 2);  // 0x7C, 0xFC
        QCOMPARE(codeOf(NumberFormat::E5M2, INFINITY, OverflowPolicy::NonSaturating), 0x7Cu);
        QCOMPARE(codeOf(NumberFormat::E5M2, -INFINITY, OverflowPolicy::NonSaturating), 0xFCu);
    }

    void everyE2m1CodeDecodes() {
        for (uint32_t c = 0; c < 16; ++c) {
            QVERIFY(sameValue(decode(NumberFormat::E2M1, c), kE2m1[c]));
            QCOMPARE(codeOf(NumberFormat::E2M1, kE2m1[c]), c);
        }
    }

    // ---- rounding -----------------------------------------------------------------
    // Between two adjacent codes the midpoint goes to the even code (mantissa LSB
    // 0), a hair below to the lower and a hair above to the upper; negatives mirror.
    void midpointsRoundToEven_data() {
        QTest::addColumn<int>("format");
        QTest::newRow("e4m3") << static_cast<int>(NumberFormat::E4M3);
        QTest::newRow("e5m2") << static_cast<int>(NumberFormat::E5M2);
        QTest::newRow("e2m1") << static_cast<int>(NumberFormat::E2M1);
        QTest::newRow("fp16") << static_cast<int>(NumberFormat::Fp16);
    }
    void midpointsRoundToEven() {
        QFETCH(int, format);
        const auto f = static_cast<NumberFormat>(format);
        const auto codes = positiveFiniteCodes(f);
        const uint32_t sign = 1u << (describe(f).bits - 1);
        int checked = 0;
        for (size_t i = 0; i + 1 < codes.size(); ++i) {
            const double lo = decode(f, codes[i]), hi = decode(f, codes[i + 1]);
            QCOMPARE(codes[i + 1], codes[i] + 1);  // codes are ordered like their values
            const double mid = (lo + hi) / 2;
            const uint32_t even = (codes[i] % 2 == 0) ? codes[i] : codes[i + 1];
            QCOMPARE(codeOf(f, mid), even);
            QCOMPARE(codeOf(f, -mid), even | sign);
            QCOMPARE(codeOf(f, std::nextafter(mid, 0.0)), codes[i]);
            QCOMPARE(codeOf(f, std::nextafter(mid, INFINITY)), codes[i + 1]);
            ++checked;
        }
        QVERIFY(checked >= 7);
    }

    void overflowSaturatesOrNot() {
        const auto sat = OverflowPolicy::Saturate, non = OverflowPolicy::NonSaturating;
        // e4m3: 448 is the largest; 464 ties (448 vs the missing 480) and goes to 448.
        QCOMPARE(codeOf(NumberFormat::E4M3, 450.0, non), 0x7Eu);
        QCOMPARE(codeOf(NumberFormat::E4M3, 464.0, non), 0x7Eu);
        QCOMPARE(codeOf(NumberFormat::E4M3, std::nextafter(464.0, 0.0), non), 0x7Eu);
        QCOMPARE(codeOf(NumberFormat::E4M3, std::nextafter(464.0, 1e9), non), 0x7Fu);  // NaN
        QCOMPARE(codeOf(NumberFormat::E4M3, -1e6, non), 0xFFu);
        QCOMPARE(codeOf(NumberFormat::E4M3, std::nextafter(464.0, 1e9), sat), 0x7Eu);
        QCOMPARE(codeOf(NumberFormat::E4M3, -1e6, sat), 0xFEu);
        QCOMPARE(codeOf(NumberFormat::E4M3, INFINITY, sat), 0x7Eu);
        QCOMPARE(codeOf(NumberFormat::E4M3, INFINITY, non), 0x7Fu);
        // e5m2: 61440 ties 57344 (1.11b x 2^15) with 65536 (1.00b x 2^16, even): overflow.
        QCOMPARE(codeOf(NumberFormat::E5M2, std::nextafter(61440.0, 0.0), non), 0x7Bu);
        QCOMPARE(codeOf(NumberFormat::E5M2, 61440.0, non), 0x7Cu);  // +Inf
        QCOMPARE(codeOf(NumberFormat::E5M2, 61440.0, sat), 0x7Bu);
        QCOMPARE(codeOf(NumberFormat::E5M2, -1e30, sat), 0xFBu);
        // fp16 without saturation is IEEE: 65520 (the tie) and above are Inf.
        QCOMPARE(codeOf(NumberFormat::Fp16, 65519.0, non), 0x7BFFu);
        QCOMPARE(codeOf(NumberFormat::Fp16, 65520.0, non), 0x7C00u);
        QCOMPARE(codeOf(NumberFormat::Fp16, 65520.0, sat), 0x7BFFu);
        // e2m1: 5 ties 4 (even) and 6; 7 ties 6 and 8 (even) and so overflows.
        QCOMPARE(codeOf(NumberFormat::E2M1, 5.0, non), 0x6u);
        QCOMPARE(codeOf(NumberFormat::E2M1, 6.9, non), 0x7u);
        QCOMPARE(codeOf(NumberFormat::E2M1, 7.0, sat), 0x7u);
        QVERIFY(!encode(NumberFormat::E2M1, 7.0, non));
        QVERIFY(!encode(NumberFormat::E2M1, NAN));
        QVERIFY(!noCodeReason(NumberFormat::E2M1, NAN, sat).empty());
        QVERIFY(noCodeReason(NumberFormat::E2M1, 7.0, sat).empty());
        QCOMPARE(codeOf(NumberFormat::E2M1, -INFINITY, sat), 0xFu);
        // NaN keeps its sign where the format has NaN.
        QCOMPARE(codeOf(NumberFormat::E4M3, NAN), 0x7Fu);
        QCOMPARE(codeOf(NumberFormat::E4M3, -std::nan("")), 0xFFu);
        QCOMPARE(codeOf(NumberFormat::E5M2, NAN), 0x7Eu);
    }

    void subnormalsAndSignedZero() {
        const double e4m3Tiny = std::ldexp(1.0, -9);
        QCOMPARE(codeOf(NumberFormat::E4M3, e4m3Tiny), 0x01u);
        QCOMPARE(codeOf(NumberFormat::E4M3, e4m3Tiny / 2), 0x00u);  // tie with 0: even
        QCOMPARE(codeOf(NumberFormat::E4M3, std::nextafter(e4m3Tiny / 2, 1.0)), 0x01u);
        QCOMPARE(codeOf(NumberFormat::E4M3, 3 * e4m3Tiny / 2), 0x02u);  // tie 1 vs 2: 2
        QCOMPARE(codeOf(NumberFormat::E4M3, 5 * e4m3Tiny / 2), 0x02u);  // tie 2 vs 3: 2
        QCOMPARE(codeOf(NumberFormat::E4M3, 7.5 * e4m3Tiny), 0x08u);    // rounds up into the normals
        QCOMPARE(codeOf(NumberFormat::E4M3, -e4m3Tiny / 4), 0x80u);     // -0
        QCOMPARE(codeOf(NumberFormat::E4M3, -0.0), 0x80u);
        QCOMPARE(codeOf(NumberFormat::E4M3, 0.0), 0x00u);
        QVERIFY(sameValue(decode(NumberFormat::E4M3, 0x80), -0.0));
        const double e5m2Tiny = std::ldexp(1.0, -16);
        QCOMPARE(codeOf(NumberFormat::E5M2, e5m2Tiny), 0x01u);
        QCOMPARE(codeOf(NumberFormat::E5M2, 3 * e5m2Tiny), 0x03u);
        QCOMPARE(codeOf(NumberFormat::E5M2, e5m2Tiny / 2), 0x00u);
        QCOMPARE(codeOf(NumberFormat::E5M2, -e5m2Tiny * 0.75), 0x81u);
        QCOMPARE(codeOf(NumberFormat::E2M1, 0.25), 0x0u);   // tie 0 vs 0.5: 0
        QCOMPARE(codeOf(NumberFormat::E2M1, 0.26), 0x1u);
        QCOMPARE(codeOf(NumberFormat::E2M1, 0.75), 0x2u);   // tie 0.5 vs 1: 1
        QCOMPARE(codeOf(NumberFormat::E2M1, -0.1), 0x8u);   // -0
        QVERIFY(sameValue(decode(NumberFormat::E2M1, 0x8), -0.0));
        // fp16 subnormals at the limits the fp16 class counts use.
        QCOMPARE(codeOf(NumberFormat::Fp16, std::ldexp(1.0, -25)), 0x0000u);
        QCOMPARE(codeOf(NumberFormat::Fp16, std::nextafter(std::ldexp(1.0, -25), 1.0)), 0x0001u);
    }

    // The generic codec on fp16 and bf16 matches torch-free IEEE behaviour that the
    // tensor path gets from x.to(kHalf) / x.to(kBFloat16): checked on random values
    // against the nearest-even rule written with frexp here.
    void fp16AndBf16MatchNearestEven() {
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> exponent(-30.0, 20.0);
        std::uniform_real_distribution<double> unit(-1.0, 1.0);
        for (int i = 0; i < 20000; ++i) {
            const double v = static_cast<float>(unit(rng) * std::exp2(exponent(rng)));
            for (const auto f : {NumberFormat::Fp16, NumberFormat::Bf16}) {
                const FormatDescription& d = describe(f);
                int e;
                std::frexp(std::fabs(v), &e);
                const int q = std::max(e - 1, d.minExponent()) - d.mantissaBits;
                double expected = std::nearbyint(std::ldexp(v, -q));
                expected = std::ldexp(expected, q);
                if (std::fabs(expected) > d.maxFinite) expected = std::copysign(INFINITY, v);
                if (expected == 0.0) expected = std::copysign(0.0, v);
                const auto got = roundTo(f, v, OverflowPolicy::NonSaturating);
                QVERIFY(got);
                QVERIFY2(sameValue(*got, expected), qPrintable(QString("%1: %2 -> %3 vs %4")
                                                                  .arg(d.name).arg(v, 0, 'g', 17)
                                                                  .arg(*got, 0, 'g', 17).arg(expected, 0, 'g', 17)));
            }
        }
    }

    // ---- e8m0 ---------------------------------------------------------------------
    void e8m0FloorAndCeil() {
        using R = PowerOfTwoRounding;
        auto code = [](double v, R r, OverflowPolicy p = OverflowPolicy::Saturate) {
            const auto c = encodeE8m0(v, r, p);
            return c ? *c : 0xDEADu;
        };
        // Powers of two are themselves under both rules.
        for (int k : {-127, -126, -1, 0, 1, 8, 126, 127}) {
            const double p = std::ldexp(1.0, k);
            QCOMPARE(code(p, R::Floor), static_cast<uint32_t>(k + 127));
            QCOMPARE(code(p, R::Ceil), static_cast<uint32_t>(k + 127));
            QCOMPARE_BITS(decode(NumberFormat::E8M0, static_cast<uint32_t>(k + 127)), p);
        }
        // Just above a power of two: floor keeps it, ceil takes the next one.
        QCOMPARE(code(std::nextafter(1.0, 2.0), R::Floor), 127u);
        QCOMPARE(code(std::nextafter(1.0, 2.0), R::Ceil), 128u);
        // Just below: floor takes the one below, ceil the power itself.
        QCOMPARE(code(std::nextafter(1.0, 0.0), R::Floor), 126u);
        QCOMPARE(code(std::nextafter(1.0, 0.0), R::Ceil), 127u);
        QCOMPARE(code(3.0, R::Floor), 128u);
        QCOMPARE(code(3.0, R::Ceil), 129u);
        QCOMPARE(code(448.0, R::Floor), 135u);  // 2^8
        QCOMPARE(code(448.0, R::Ceil), 136u);   // 2^9
        // The ends: below 2^-127 clamps to the smallest; 2^128 saturates or is NaN.
        QCOMPARE(code(std::ldexp(1.0, -140), R::Floor), 0u);
        QCOMPARE(code(std::ldexp(1.0, 128), R::Floor), 0xFEu);
        QCOMPARE(code(std::ldexp(1.0, 128), R::Floor, OverflowPolicy::NonSaturating), 0xFFu);
        QCOMPARE(code(std::nextafter(std::ldexp(1.0, 127), INFINITY), R::Ceil), 0xFEu);
        QCOMPARE(code(INFINITY, R::Floor), 0xFEu);
        QCOMPARE(code(NAN, R::Floor), 0xFFu);
        QVERIFY(std::isnan(decode(NumberFormat::E8M0, 0xFF)));
        QVERIFY(!encodeE8m0(0.0, R::Floor));
        QVERIFY(!encodeE8m0(-2.0, R::Ceil));
        QVERIFY(!noCodeReason(NumberFormat::E8M0, 0.0, OverflowPolicy::Saturate).empty());
        // encode() is the floor rule.
        QCOMPARE(codeOf(NumberFormat::E8M0, 3.0), 128u);
    }

    // ---- stochastic rounding (scalar) -----------------------------------------------
    // Each draw gives one of the two neighbours; the mean of N draws of a value
    // between lo and hi has standard deviation at most (hi - lo) / (2 sqrt(N)):
    // it must come within 5 of those of the value (a false failure below 1e-6).
    void stochasticRoundingIsUnbiased() {
        std::mt19937 rng(11);
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        const int n = 200000;
        struct Case { NumberFormat f; double v, lo, hi; };
        const Case cases[] = {
            {NumberFormat::E2M1, 2.3, 2.0, 3.0},
            {NumberFormat::E2M1, 4.2, 4.0, 6.0},
            {NumberFormat::E2M1, 0.1, 0.0, 0.5},
            {NumberFormat::E4M3, 0.3, 0.28125, 0.3125},
            {NumberFormat::E5M2, -1e-5, -1.52587890625e-05, 0.0},
        };
        for (const Case& c : cases) {
            double sum = 0;
            for (int i = 0; i < n; ++i) {
                const auto code = encodeStochastic(c.f, c.v, uniform(rng));
                QVERIFY(code);
                const double r = decode(c.f, *code);
                QVERIFY2(r == c.lo || r == c.hi, qPrintable(QString::number(r)));
                sum += r;
            }
            const double bound = 5 * std::fabs(c.hi - c.lo) / (2 * std::sqrt(double(n)));
            QVERIFY2(std::fabs(sum / n - c.v) < bound,
                     qPrintable(QString("%1: mean %2, bound %3").arg(c.v).arg(sum / n).arg(bound)));
        }
        // A value on a code stays there for every draw; u = 0 rounds up any excess.
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 3.0, 0.999999), 0x5u);
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 3.0, 0.0), 0x5u);
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 3.01, 0.0), 0x6u);
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 3.99, 0.999), 0x5u);
        // Past the largest it saturates like the nearest rounding.
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 6.5, 0.0), 0x7u);
        // A draw below 0 (outside [0, 1)) is taken as u = 0, not as a request for the nearest
        // rounding: 3.01 lies between 3 and 4, and u = 0 < 0.01 takes 4 (nearest gives 3).
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 3.01, -0.25), 0x6u);
    }

    // ---- tensor quantizers against the scalar codec, bit for bit ---------------------
    void tensorElementsMatchScalar() {
        const auto x = wideRandomValues(20000, 3);
        const auto xs = toVector(x);
        for (const auto f : {NumberFormat::Fp16, NumberFormat::Bf16, NumberFormat::E4M3, NumberFormat::E5M2,
                             NumberFormat::E2M1}) {
            for (const auto p : {OverflowPolicy::Saturate, OverflowPolicy::NonSaturating}) {
                if (f == NumberFormat::E2M1 && p == OverflowPolicy::NonSaturating) {
                    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, roundElements(x, f, p));
                    continue;
                }
                torch::Tensor over;
                const auto got = roundElements(x, f, p, {}, &over);
                std::vector<float> expected;
                int64_t overflows = 0;
                for (float v : xs) {
                    expected.push_back(scalarRound(f, v, p));
                    overflows += std::isfinite(v) &&
                                 roundMagnitude(describe(f), std::fabs(double(v))) > describe(f).maxFinite;
                }
                const QString miss = firstMismatch(got, expected);
                QVERIFY2(miss.isEmpty(), qPrintable(QString(describe(f).name) + ": " + miss));
                QCOMPARE(over.sum().item<int64_t>(), overflows);
                QVERIFY(overflows > 0);
            }
        }
    }

    void stochasticTensorMatchesScalar() {
        const auto x = wideRandomValues(20000, 5);
        const auto xs = toVector(x);
        for (const auto f : {NumberFormat::E4M3, NumberFormat::E5M2, NumberFormat::E2M1}) {
            QuantizeOptions options;
            options.generator = at::detail::createCPUGenerator(99);
            const auto got = quantizeUnscaled(x, f, options).values;
            auto again = at::detail::createCPUGenerator(99);
            const auto u = toVector(torch::rand({x.numel()}, again));
            std::vector<float> expected;
            for (size_t i = 0; i < xs.size(); ++i) expected.push_back(scalarRound(f, xs[i], OverflowPolicy::Saturate, u[i]));
            const QString miss = firstMismatch(got, expected);
            QVERIFY2(miss.isEmpty(), qPrintable(QString(describe(f).name) + ": " + miss));
        }
    }

    void currentScalingMatchesScalar() {
        // Gradient-like values: normal around 1e-3 with a few large ones.
        torch::manual_seed(1);
        auto x = torch::randn({64, 96}) * 1e-3f;
        x.index_put_({3, 5}, 0.75f);
        const auto xs = toVector(x);
        for (const auto f : {NumberFormat::E4M3, NumberFormat::E5M2}) {
            for (int margin : {0, 2}) {
                const auto out = quantizeCurrentScaling(x, f, margin);
                float amax = 0;
                for (float v : xs) amax = std::max(amax, std::fabs(v));
                QCOMPARE_BITS(amax, 0.75f);
                const float scale = static_cast<float>(describe(f).maxFinite) / amax / float(1 << margin);
                QCOMPARE_BITS(out.stats.scale, double(scale));
                QCOMPARE_BITS(out.stats.amax, 0.75);
                QCOMPARE_BITS(out.stats.scaleAmax, 0.75);
                std::vector<float> expected;
                int64_t underflows = 0;
                double err = 0, signal = 0;
                for (float v : xs) {
                    const float q = scalarRound(f, v * scale) * (1.0f / scale);
                    expected.push_back(q);
                    underflows += v != 0 && q == 0;
                    err += (double(q) - v) * (double(q) - v);
                    signal += double(v) * v;
                }
                const QString miss = firstMismatch(out.values, expected);
                QVERIFY2(miss.isEmpty(), qPrintable(miss));
                QCOMPARE(out.stats.underflowed, underflows);
                QCOMPARE(out.stats.saturated, int64_t{0});  // current scaling maps amax onto the maximum
                QCOMPARE(out.stats.elements, int64_t{64 * 96});
                QVERIFY(std::fabs(out.stats.relativeError() - err / signal) <= 1e-12 * (err / signal));
                QVERIFY(std::fabs(out.stats.snrDb() - 10 * std::log10(signal / err)) < 1e-9);
            }
        }
        // e4m3 keeps 3 mantissa bits: SNR of normal-ish values is near 6.02 * 4 + ~7 dB;
        // e5m2's 2 bits ~6 dB less. Checks the sign of the difference, not a constant.
        const auto e4 = quantizeCurrentScaling(x, NumberFormat::E4M3).stats.snrDb();
        const auto e5 = quantizeCurrentScaling(x, NumberFormat::E5M2).stats.snrDb();
        QVERIFY2(e4 > e5 + 3, qPrintable(QString("%1 vs %2").arg(e4).arg(e5)));
    }

    void fixedScaleSaturatesAndCountsIt() {
        const auto x = torch::tensor({100.0f, 224.0f, 232.0f, 240.0f, -1000.0f, 1e-4f, NAN});
        const auto out = quantizeWithScale(x, NumberFormat::E4M3, 2.0f);
        // x * 2: 200 -> 192 (spacing 16 in [128, 256): 12.5 units, a tie, -> 12), 448, 464 -> 448 (tie),
        // 480 -> saturated 448, -2000 -> -448, 2e-4 -> 0 (below 2^-10), NaN stays.
        const std::vector<float> expected = {96.0f, 224.0f, 224.0f, 224.0f, -224.0f, 0.0f, NAN};
        const QString miss = firstMismatch(out.values, expected);
        QVERIFY2(miss.isEmpty(), qPrintable(miss));
        QCOMPARE(out.stats.saturated, int64_t{2});
        QCOMPARE(out.stats.underflowed, int64_t{1});
        QCOMPARE(out.stats.nonFinite, int64_t{1});
        QuantizeOptions strict;
        strict.overflow = OverflowPolicy::NonSaturating;
        const auto nan = quantizeWithScale(x, NumberFormat::E4M3, 2.0f, strict).values;
        QVERIFY(std::isnan(nan[3].item<float>()) && std::isnan(nan[4].item<float>()));
        QCOMPARE_BITS(nan[2].item<float>(), 224.0f);
        const auto inf = quantizeWithScale(x * 100, NumberFormat::E5M2, 2.0f, strict).values;
        QCOMPARE_BITS(inf[4].item<float>(), -INFINITY);
    }

    void delayedScalingLags() {
        DelayedScaling scaling(NumberFormat::E4M3, 3, DelayedScaling::AmaxCompute::Max);
        // First tensor: no history, scale 1 (Transformer Engine's initial scale).
        auto out = quantizeDelayedScaling(torch::tensor({10.0f, -2.0f}), scaling, NumberFormat::E4M3);
        QCOMPARE_BITS(out.stats.scale, 1.0);
        QCOMPARE_BITS(out.stats.scaleAmax, 0.0);
        QCOMPARE_BITS(scaling.scale(), 448.0f / 10.0f);
        // The next tensor grew tenfold: the history's amax (10) lags its own (100), and
        // 100 * 44.8 = 4480 saturates.
        out = quantizeDelayedScaling(torch::tensor({100.0f, 1.0f}), scaling, NumberFormat::E4M3);
        QCOMPARE_BITS(out.stats.scaleAmax, 10.0);
        QCOMPARE_BITS(out.stats.amax, 100.0);
        QCOMPARE(out.stats.saturated, int64_t{1});
        QCOMPARE_BITS(out.values[0].item<float>(), 448.0f * (1.0f / (448.0f / 10.0f)));
        QCOMPARE_BITS(scaling.scale(), 448.0f / 100.0f);
        // max over a history of 3: 100 stays until it falls out.
        scaling.record(1.0f);
        QCOMPARE_BITS(scaling.scale(), 448.0f / 100.0f);
        scaling.record(1.0f);
        scaling.record(1.0f);
        QCOMPARE_BITS(scaling.scale(), 448.0f);
        QCOMPARE(scaling.historySize(), 3);
        // most_recent follows the last amax; a margin of 1 halves the scale; zero and
        // non-finite amaxes keep the scale.
        DelayedScaling recent(NumberFormat::E5M2, 16, DelayedScaling::AmaxCompute::MostRecent, 1);
        recent.record(1024.0f);
        recent.record(2.0f);
        QCOMPARE_BITS(recent.scale(), 57344.0f / 2.0f / 2.0f);
        recent.record(0.0f);
        QCOMPARE_BITS(recent.scale(), 57344.0f / 2.0f / 2.0f);
        recent.record(INFINITY);
        QCOMPARE_BITS(recent.scale(), 57344.0f / 2.0f / 2.0f);
        // An all-zero tensor after a real one, with a history of 1: the scale stays the one
        // made from amax 10, so the amax it was computed from stays 10 too.
        DelayedScaling one(NumberFormat::E4M3, 1, DelayedScaling::AmaxCompute::Max);
        one.record(10.0f);
        one.record(0.0f);
        QCOMPARE_BITS(one.scale(), 448.0f / 10.0f);
        QCOMPARE_BITS(one.scaleAmax(), 10.0f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DelayedScaling(NumberFormat::E4M3, 0));
    }

    void mxScaleRuleByHand() {
        // floor: floor(log2 amax) - emax; rceil: smallest 2^e with amax / 2^e <= max.
        QCOMPARE(mxScaleExponent(30.0, NumberFormat::E2M1, MxScaleRule::Floor), 2);   // 16 -> 2^(4-2)
        QCOMPARE(mxScaleExponent(30.0, NumberFormat::E2M1, MxScaleRule::Rceil), 3);   // 30/6 = 5 -> 8
        QCOMPARE(mxScaleExponent(24.0, NumberFormat::E2M1, MxScaleRule::Rceil), 2);   // 24/6 = 4 exactly
        QCOMPARE(mxScaleExponent(448.0, NumberFormat::E4M3, MxScaleRule::Floor), 0);
        QCOMPARE(mxScaleExponent(448.0, NumberFormat::E4M3, MxScaleRule::Rceil), 0);
        QCOMPARE(mxScaleExponent(449.0, NumberFormat::E4M3, MxScaleRule::Floor), 0);
        QCOMPARE(mxScaleExponent(449.0, NumberFormat::E4M3, MxScaleRule::Rceil), 1);
        QCOMPARE(mxScaleExponent(1.0, NumberFormat::E5M2, MxScaleRule::Floor), -15);
        QCOMPARE(mxScaleExponent(0.0, NumberFormat::E4M3, MxScaleRule::Floor), -127);
        QCOMPARE(mxScaleExponent(1e-45, NumberFormat::E4M3, MxScaleRule::Rceil), -127);
        QCOMPARE(mxScaleExponent(3e38, NumberFormat::E2M1, MxScaleRule::Floor), 125);
    }

    void mxfp4BlockByHand() {
        // One block of 32 with amax 30. floor: X = 2^(4 - 2) = 4; rceil: X = 8.
        std::vector<float> x(32, 2.5f);
        const float head[] = {20.0f, -13.0f, 1.0f, 1.5f, 3.0f, 7.0f, 30.0f, -0.5f, 0.0f};
        std::copy(std::begin(head), std::end(head), x.begin());
        const auto t = torch::from_blob(x.data(), {1, 32}, torch::kFloat).clone();
        // floor, x / 4: 5 -> 4 (tie, even), -3.25 -> -3, 0.25 -> 0 (tie), 0.375 -> 0.5,
        // 0.75 -> 1 (tie), 1.75 -> 2 (tie), 7.5 -> 6 (saturated), -0.125 -> -0, 0, 0.625 -> 0.5.
        std::vector<float> floorExpected(32, 2.0f);
        const float floorHead[] = {16.0f, -12.0f, 0.0f, 2.0f, 4.0f, 8.0f, 24.0f, -0.0f, 0.0f};
        std::copy(std::begin(floorHead), std::end(floorHead), floorExpected.begin());
        const auto f = quantizeMx(t, NumberFormat::E2M1, MxScaleRule::Floor);
        QString miss = firstMismatch(f.values, floorExpected);
        QVERIFY2(miss.isEmpty(), qPrintable(miss));
        QCOMPARE(f.stats.underflowed, int64_t{2});
        QCOMPARE(f.stats.crushedByOutlier, int64_t{2});
        QCOMPARE(f.stats.saturated, int64_t{1});
        QCOMPARE(f.stats.blocks, int64_t{1});
        QCOMPARE(f.stats.blockScaleExponents, (std::map<int, int64_t>{{2, 1}}));
        double err = 0, signal = 0;
        for (int i = 0; i < 32; ++i) {
            err += (double(floorExpected[i]) - x[i]) * (double(floorExpected[i]) - x[i]);
            signal += double(x[i]) * x[i];
        }
        QCOMPARE_BITS(f.stats.squaredError, err);
        QCOMPARE_BITS(f.stats.squaredSignal, signal);
        // rceil, x / 8: 2.5 -> 2 (tie), -1.625 -> -1.5, 0.125 -> 0, 0.1875 -> 0, 0.375 -> 0.5,
        // 0.875 -> 1, 3.75 -> 4, -0.0625 -> -0, 0, 0.3125 -> 0.5.
        std::vector<float> ceilExpected(32, 4.0f);
        const float ceilHead[] = {16.0f, -12.0f, 0.0f, 0.0f, 4.0f, 8.0f, 32.0f, -0.0f, 0.0f};
        std::copy(std::begin(ceilHead), std::end(ceilHead), ceilExpected.begin());
        const auto c = quantizeMx(t, NumberFormat::E2M1, MxScaleRule::Rceil);
        miss = firstMismatch(c.values, ceilExpected);
        QVERIFY2(miss.isEmpty(), qPrintable(miss));
        QCOMPARE(c.stats.underflowed, int64_t{3});
        QCOMPARE(c.stats.saturated, int64_t{0});
        QCOMPARE(c.stats.blockScaleExponents, (std::map<int, int64_t>{{3, 1}}));
    }

    void nvfp4BlocksByHand() {
        // Three blocks of 16; tensor amax 2688 = 448 * 6, so s_tensor = 1.
        std::vector<float> x(48, 0.0f);
        const float a[] = {12.0f, 5.0f, -1.0f, 0.4f, 3.1f};      // amax 12: s_block = e4m3(2) = 2
        const float b[] = {2688.0f, 1000.0f, 100.0f, -300.0f};   // amax 2688: s_block = 448
        const float c[] = {7.0f, 2.0f, -0.3f};                   // amax 7: 7/6 -> e4m3 1.125
        std::copy(std::begin(a), std::end(a), x.begin());
        std::copy(std::begin(b), std::end(b), x.begin() + 16);
        std::copy(std::begin(c), std::end(c), x.begin() + 32);
        const auto t = torch::from_blob(x.data(), {48}, torch::kFloat).clone();
        std::vector<float> expected(48, 0.0f);
        // a / 2: 6, 2.5 -> 2 (tie), -0.5, 0.2 -> 0, 1.55 -> 1.5; times 2.
        const float qa[] = {12.0f, 4.0f, -1.0f, 0.0f, 3.0f};
        // b / 448: 6, 2.23 -> 2, 0.223 -> 0, -0.67 -> -0.5; times 448.
        const float qb[] = {2688.0f, 896.0f, 0.0f, -224.0f};
        // c / 1.125: 6.22 -> 6, 1.78 -> 2, -0.267 -> -0.5; times 1.125.
        const float qc[] = {6.75f, 2.25f, -0.5625f};
        std::copy(std::begin(qa), std::end(qa), expected.begin());
        std::copy(std::begin(qb), std::end(qb), expected.begin() + 16);
        std::copy(std::begin(qc), std::end(qc), expected.begin() + 32);
        const auto out = quantizeNvfp4(t);
        const QString miss = firstMismatch(out.values, expected);
        QVERIFY2(miss.isEmpty(), qPrintable(miss));
        QCOMPARE_BITS(out.stats.scale, 1.0);
        QCOMPARE(out.stats.blocks, int64_t{3});
        QCOMPARE(out.stats.underflowed, int64_t{2});
        QCOMPARE(out.stats.crushedByOutlier, int64_t{2});
        // floor(log2) of the block scales 2, 448, 1.125.
        QCOMPARE(out.stats.blockScaleExponents, (std::map<int, int64_t>{{0, 1}, {1, 1}, {8, 1}}));
    }

    // MX and NVFP4 on random matrices whose last dimension is not a multiple of the
    // block (padding), against a loop over blocks using the scalar codec.
    void blockQuantizersMatchScalar() {
        torch::manual_seed(4);
        auto x = torch::randn({5, 70}) * torch::exp2(torch::randint(-20, 20, {5, 70}).to(torch::kFloat));
        const auto xs = toVector(x);
        auto reference = [&](int64_t block, auto&& quantizeBlock) {
            std::vector<float> out(xs.size());
            for (int64_t row = 0; row < 5; ++row)
                for (int64_t start = 0; start < 70; start += block) {
                    const int64_t end = std::min<int64_t>(start + block, 70);
                    float amax = 0;
                    for (int64_t i = start; i < end; ++i) amax = std::max(amax, std::fabs(xs[row * 70 + i]));
                    for (int64_t i = start; i < end; ++i) out[row * 70 + i] = quantizeBlock(xs[row * 70 + i], amax);
                }
            return out;
        };
        for (const auto element : {NumberFormat::E4M3, NumberFormat::E5M2, NumberFormat::E2M1}) {
            for (const auto rule : {MxScaleRule::Floor, MxScaleRule::Rceil}) {
                const auto expected = reference(32, [&](float v, float amax) {
                    const float scale = static_cast<float>(std::ldexp(1.0, mxScaleExponent(amax, element, rule)));
                    return scalarRound(element, v / scale) * scale;
                });
                const QString miss = firstMismatch(quantizeMx(x, element, rule).values, expected);
                QVERIFY2(miss.isEmpty(), qPrintable(QString(describe(element).name) + ": " + miss));
            }
        }
        float tensorAmax = 0;
        for (float v : xs) tensorAmax = std::max(tensorAmax, std::fabs(v));
        const float sT = tensorAmax / (448.0f * 6.0f);
        QCOMPARE_BITS(nvfp4TensorScale(tensorAmax), sT);
        const auto expected = reference(16, [&](float v, float amax) {
            const float total = scalarRound(NumberFormat::E4M3, amax / 6.0f / sT) * sT;
            return total > 0 ? scalarRound(NumberFormat::E2M1, v / total) * total : std::copysign(0.0f, v);
        });
        const auto got = quantizeNvfp4(x);
        const QString miss = firstMismatch(got.values, expected);
        QVERIFY2(miss.isEmpty(), qPrintable(miss));
        QVERIFY(got.stats.underflowed > 0);  // the spread of 2^40 zeroes the small ones
        QCOMPARE(got.stats.blocks, int64_t{5 * 5});
    }

    // The CPU passes (training steps without statistics, probe steps with them) and the
    // vectorised torch ops (other devices) must give the same bits for every recipe, on
    // values over fp32's whole range with NaN, Inf, signed zeros and ties mixed in, in
    // shapes whose rows are not a multiple of the block and large enough to be split
    // across threads; and the passes' statistics must equal the torch ops' exactly.
    void cpuPassesEqualVectorisedPath() {
        QuantizeOptions training;
        training.collectStats = false;
        const QuantizeOptions probing;  // the CPU passes with their counts
        QuantizeOptions torchOps;
        torchOps.cpuPasses = false;
        for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 70}, std::vector<int64_t>{41, 4099},
                                                   std::vector<int64_t>{8, 16384}, std::vector<int64_t>{17}}) {
            int64_t n = 1;
            for (int64_t d : shape) n *= d;
            auto x = wideRandomValues(n, static_cast<uint64_t>(n)).reshape(shape);
            // Rows of one magnitude too, where the block scales matter more than the range.
            auto narrow = torch::randn(shape) * 3.0f;
            for (const auto& values : {x, narrow}) {
                // Blocks of 16 and 32: the torch path pads rows that are not a multiple.
                const bool padded = shape.back() % 16 != 0;
                auto same = [&](const QString& what, const QuantizedTensor& reference,
                                const QuantizedTensor& pass, const QuantizedTensor& passWithStats,
                                bool blocks = true) {
                    const auto expected = toVector(reference.values);
                    for (const auto* got : {&pass, &passWithStats}) {
                        const QString miss = firstMismatch(got->values, expected);
                        QVERIFY2(miss.isEmpty(), qPrintable(QString("%1 %2: %3").arg(what).arg(n).arg(miss)));
                    }
                    const QString stats = statsMismatch(passWithStats.stats, reference.stats, !(blocks && padded));
                    QVERIFY2(stats.isEmpty(), qPrintable(QString("%1 %2 statistics: %3").arg(what).arg(n).arg(stats)));
                };
                for (const auto f : {NumberFormat::E4M3, NumberFormat::E5M2}) {
                    same(QString("current ") + describe(f).name, quantizeCurrentScaling(values, f, 0, torchOps),
                         quantizeCurrentScaling(values, f, 0, training), quantizeCurrentScaling(values, f, 0, probing),
                         false);
                    same("fixed scale", quantizeWithScale(values, f, 0.37f, torchOps),
                         quantizeWithScale(values, f, 0.37f, training), quantizeWithScale(values, f, 0.37f, probing),
                         false);
                }
                for (const auto element : {NumberFormat::E4M3, NumberFormat::E5M2, NumberFormat::E2M1})
                    for (const auto rule : {MxScaleRule::Floor, MxScaleRule::Rceil})
                        same(QString("mx ") + describe(element).name, quantizeMx(values, element, rule, torchOps),
                             quantizeMx(values, element, rule, training), quantizeMx(values, element, rule, probing));
                same("nvfp4", quantizeNvfp4(values, torchOps), quantizeNvfp4(values, training),
                     quantizeNvfp4(values, probing));
                // Stochastic rounding: all draw from generators seeded alike, one draw per
                // element in the same order, and round with the same rule.
                auto stochastic = [](const QuantizeOptions& base) {
                    QuantizeOptions o = base;
                    o.generator = at::detail::createCPUGenerator(11);
                    return o;
                };
                same("nvfp4 stochastic", quantizeNvfp4(values, stochastic(torchOps)),
                     quantizeNvfp4(values, stochastic(training)), quantizeNvfp4(values, stochastic(probing)));
                same("mxfp4 stochastic", quantizeMx(values, NumberFormat::E2M1, MxScaleRule::Floor, stochastic(torchOps)),
                     quantizeMx(values, NumberFormat::E2M1, MxScaleRule::Floor, stochastic(training)),
                     quantizeMx(values, NumberFormat::E2M1, MxScaleRule::Floor, stochastic(probing)));
                same("e5m2 stochastic", quantizeWithScale(values, NumberFormat::E5M2, 0.37f, stochastic(torchOps)),
                     quantizeWithScale(values, NumberFormat::E5M2, 0.37f, stochastic(training)),
                     quantizeWithScale(values, NumberFormat::E5M2, 0.37f, stochastic(probing)), false);
            }
        }
    }

    // The training pass reads the blocks where they lie (a conv activation's channels,
    // a second matmul operand's rows, a kernel's C x k x k) instead of moving them last
    // and back: the same bits as the torch ops on the moved tensor, moved back, also
    // with stochastic rounding (draws in the moved tensor's order) and NaN/Inf in some
    // blocks; shapes whose blocked dimension is not a multiple of the block and whose
    // rows are wider than one tile of columns.
    void cpuPassesReadEveryLayoutInPlace_data() {
        QTest::addColumn<int>("layout");
        QTest::addColumn<QList<qint64>>("shape");
        QTest::newRow("conv input, channels") << int(BlockLayout::Channels) << QList<qint64>{3, 70, 9, 11};
        QTest::newRow("conv input, one channel") << int(BlockLayout::Channels) << QList<qint64>{4, 1, 6, 5};
        QTest::newRow("conv gradient, 64 channels") << int(BlockLayout::Channels) << QList<qint64>{2, 64, 10, 13};
        QTest::newRow("second matmul operand") << int(BlockLayout::SecondToLast) << QList<qint64>{2, 3, 45, 70};
        QTest::newRow("second operand, 2-D") << int(BlockLayout::SecondToLast) << QList<qint64>{33, 150};
        QTest::newRow("conv kernel") << int(BlockLayout::FlattenTrailing) << QList<qint64>{5, 7, 3, 3};
        // Many chunks of the statistics' sums, split across threads, and slabs of draws.
        QTest::newRow("conv gradient, many chunks") << int(BlockLayout::Channels) << QList<qint64>{6, 64, 29, 31};
        QTest::newRow("conv input, many chunks, padded") << int(BlockLayout::Channels) << QList<qint64>{5, 40, 37, 41};
    }
    void cpuPassesReadEveryLayoutInPlace() {
        QFETCH(int, layout);
        QFETCH(QList<qint64>, shape);
        const auto blockLayout = static_cast<BlockLayout>(layout);
        std::vector<int64_t> sizes(shape.begin(), shape.end());
        int64_t n = 1;
        for (int64_t d : sizes) n *= d;
        QuantizeOptions training;
        training.collectStats = false;
        QuantizeOptions torchOps;
        torchOps.cpuPasses = false;
        auto withDraws = [](QuantizeOptions o) {
            o.generator = at::detail::createCPUGenerator(3);
            return o;
        };
        const auto wide = wideRandomValues(n, 17).reshape(sizes);
        const auto narrow = torch::randn(sizes) * torch::exp2(torch::randint(-8, 8, sizes).to(torch::kFloat));
        for (const auto& values : {wide, narrow}) {
            auto moved = [&](auto&& quantize, const QuantizeOptions& o) {
                return fromBlocksLast(quantize(blocksLast(values, blockLayout), o).values, blockLayout, values.sizes());
            };
            auto check = [&](const QString& what, const torch::Tensor& expected, const torch::Tensor& got) {
                QCOMPARE(got.sizes(), values.sizes());
                QVERIFY(got.is_contiguous());
                const QString miss = firstMismatch(got, toVector(expected));
                QVERIFY2(miss.isEmpty(), qPrintable(what + ": " + miss));
            };
            for (const auto element : {NumberFormat::E4M3, NumberFormat::E5M2, NumberFormat::E2M1})
                for (const auto rule : {MxScaleRule::Floor, MxScaleRule::Rceil}) {
                    const auto mx = [&](const torch::Tensor& t, const QuantizeOptions& o) {
                        return quantizeMx(t, element, rule, o);
                    };
                    check(describe(element).name, moved(mx, torchOps),
                          quantizeMx(values, element, rule, training, blockLayout).values);
                }
            const auto mx4 = [&](const torch::Tensor& t, const QuantizeOptions& o) {
                return quantizeMx(t, NumberFormat::E2M1, MxScaleRule::Floor, o);
            };
            check("mxfp4 stochastic", moved(mx4, withDraws(torchOps)),
                  quantizeMx(values, NumberFormat::E2M1, MxScaleRule::Floor, withDraws(training), blockLayout).values);
            const auto nv = [&](const torch::Tensor& t, const QuantizeOptions& o) { return quantizeNvfp4(t, o); };
            check("nvfp4", moved(nv, torchOps), quantizeNvfp4(values, training, blockLayout).values);
            check("nvfp4 stochastic", moved(nv, withDraws(torchOps)),
                  quantizeNvfp4(values, withDraws(training), blockLayout).values);
            // With statistics too the pass reads the blocks where they lie, and sums in the
            // order of the moved tensor: the same values, the torch ops' statistics, and
            // the statistics of the CPU pass over the moved tensor bit for bit.
            const auto movedCopy = blocksLast(values, blockLayout).contiguous();
            const bool padded = movedCopy.size(-1) % 16 != 0;
            auto withStats = [&](const QString& what, auto&& quantize, bool stochastic, bool blocksOf32) {
                // Each call its own generator of the same seed, so all draw alike.
                auto options = [stochastic](bool cpuPasses) {
                    QuantizeOptions o;
                    o.cpuPasses = cpuPasses;
                    if (stochastic) o.generator = at::detail::createCPUGenerator(3);
                    return o;
                };
                const auto inPlace = quantize(values, options(true), blockLayout);
                const auto reference = quantize(movedCopy, options(false), BlockLayout::LastDim);
                const auto passOnMoved = quantize(movedCopy, options(true), BlockLayout::LastDim);
                check(what + " with statistics", fromBlocksLast(reference.values, blockLayout, values.sizes()),
                      inPlace.values);
                const bool paddedHere = padded || (blocksOf32 && movedCopy.size(-1) % 32 != 0);
                QString miss = statsMismatch(inPlace.stats, reference.stats, !paddedHere);
                QVERIFY2(miss.isEmpty(), qPrintable(what + " against the torch ops: " + miss));
                miss = statsMismatch(inPlace.stats, passOnMoved.stats);
                QVERIFY2(miss.isEmpty(), qPrintable(what + " against the pass on the moved tensor: " + miss));
            };
            const auto nvfp4 = [](const torch::Tensor& t, const QuantizeOptions& o, BlockLayout l) {
                return quantizeNvfp4(t, o, l);
            };
            withStats("nvfp4", nvfp4, false, false);
            withStats("nvfp4 stochastic", nvfp4, true, false);
            for (const auto element : {NumberFormat::E4M3, NumberFormat::E2M1})
                withStats(QString("mx ") + describe(element).name,
                          [element](const torch::Tensor& t, const QuantizeOptions& o, BlockLayout l) {
                              return quantizeMx(t, element, MxScaleRule::Rceil, o, l);
                          }, element == NumberFormat::E2M1, true);
        }
    }

    // The draws of stochastic rounding are torch::rand's, value for value, and leave the
    // generator where torch::rand leaves it: from a fresh generator and a part-used one,
    // across the engine's blocks of 624 words.
    void uniformDrawsAreTorchRand() {
        for (const int64_t used : {int64_t{0}, int64_t{1}, int64_t{100}, int64_t{623}, int64_t{700}}) {
            for (const int64_t n : {int64_t{0}, int64_t{1}, int64_t{623}, int64_t{624}, int64_t{625}, int64_t{5000}}) {
                auto ours = at::detail::createCPUGenerator(7);
                auto torchs = at::detail::createCPUGenerator(7);
                if (used) {
                    (void)torch::rand({used}, ours);
                    (void)torch::rand({used}, torchs);
                }
                const auto got = uniformDraws(n, ours, torch::kCPU);
                const auto expected = torch::rand({n}, torchs);
                QVERIFY2(torch::equal(got, expected), qPrintable(QString("%1 after %2").arg(n).arg(used)));
                // Both generators go on alike.
                QVERIFY2(torch::equal(torch::rand({1000}, ours), torch::rand({1000}, torchs)),
                         qPrintable(QString("after %1 after %2").arg(n).arg(used)));
            }
        }
    }

    // The plain casts of the format sweep on the CPU pass: fp16 and bf16 as torch's casts
    // round (then saturated), over every kind of fp32 bit pattern (random bits: NaNs with
    // payloads of both signs, Inf, fp32 subnormals) and the edges written out: the same
    // values, and the statistics of the torch path bit for bit (both sum in chunk order).
    void plainCastsOnCpuAreTorchCasts() {
        std::mt19937 rng(31);
        std::vector<uint32_t> bits(300000);
        for (auto& b : bits) b = static_cast<uint32_t>(rng());
        const uint32_t edges[] = {0x00000001u, 0x80000001u, 0x007fffffu, 0x33800000u, 0x33000001u, 0x477fefffu,
                                  0x477ff000u, 0xc77ff000u, 0x477fe000u, 0x7f7fffffu, 0x7f7f7fffu, 0x7f7f8000u,
                                  0xff7f8000u, 0x3f808000u, 0x3f818000u, 0x7fffffffu, 0xffc00001u, 0x7f800000u,
                                  0xff800000u, 0x00000000u, 0x80000000u};
        for (size_t i = 0; i < sizeof edges / sizeof *edges; ++i) bits[i * 13] = edges[i];
        const auto x = torch::from_blob(bits.data(), {static_cast<int64_t>(bits.size())}, torch::kInt32)
                           .view(torch::kFloat).clone().reshape({300, 1000});
        QuantizeOptions training, torchOps;
        training.collectStats = false;
        torchOps.cpuPasses = false;
        for (const auto format : {NumberFormat::Fp16, NumberFormat::Bf16}) {
            const auto reference = quantizeUnscaled(x, format, torchOps);
            QVERIFY(reference.stats.saturated > 0 && reference.stats.nonFinite > 0);
            const auto expected = toVector(reference.values);
            for (const auto& got : {quantizeUnscaled(x, format, training), quantizeUnscaled(x, format)}) {
                const QString miss = firstMismatch(got.values, expected);
                QVERIFY2(miss.isEmpty(), qPrintable(QString(describe(format).name) + ": " + miss));
            }
            const QString stats = statsMismatch(quantizeUnscaled(x, format).stats, reference.stats);
            QVERIFY2(stats.isEmpty(), qPrintable(QString(describe(format).name) + " statistics: " + stats));
        }
    }

    // The sweep's rows are each format's quantizer as the sweep defines it (plain casts,
    // current scaling, the block formats along the layout, nearest), here through the
    // torch ops on the tensor with its blocks moved last: the sweep's passes (in place,
    // one amax for both fp8 formats) change nothing.
    void sweepRowsAreTheQuantizersThemselves_data() {
        QTest::addColumn<int>("layout");
        QTest::addColumn<QList<qint64>>("shape");
        QTest::newRow("conv input") << int(BlockLayout::Channels) << QList<qint64>{6, 64, 19, 23};
        QTest::newRow("conv kernel gradient") << int(BlockLayout::FlattenTrailing) << QList<qint64>{64, 32, 3, 3};
        QTest::newRow("linear input, padded rows") << int(BlockLayout::LastDim) << QList<qint64>{128, 600};
    }
    void sweepRowsAreTheQuantizersThemselves() {
        QFETCH(int, layout);
        QFETCH(QList<qint64>, shape);
        const auto blockLayout = static_cast<BlockLayout>(layout);
        const std::vector<int64_t> sizes(shape.begin(), shape.end());
        int64_t n = 1;
        for (int64_t d : sizes) n *= d;
        // Values over fp32's whole range (NaN, Inf, saturation), and values of a few
        // binades, whose sums show any change in the order they are added.
        const auto wide = wideRandomValues(n, 23).reshape(sizes);
        torch::manual_seed(23);
        const auto narrow = torch::randn(sizes) * torch::exp2(torch::randint(-4, 4, sizes).to(torch::kFloat));
        for (const auto& x : {wide, narrow}) {
            const auto moved = blocksLast(x, blockLayout).contiguous();
            QuantizeOptions torchOps;
            torchOps.cpuPasses = false;
            const float amax = torch::where(torch::isfinite(x), x.abs(), torch::zeros({})).max().item<float>();
            auto current = [&](NumberFormat f) {
                auto out = quantizeWithScale(x, f, perTensorScale(amax, f), torchOps);
                out.stats.scaleAmax = amax;
                return out.stats;
            };
            const std::vector<std::pair<QuantizationStats, bool>> expected = {
                {quantizeUnscaled(x, NumberFormat::Fp16, torchOps).stats, true},
                {quantizeUnscaled(x, NumberFormat::Bf16, torchOps).stats, true},
                {current(NumberFormat::E4M3), true},
                {current(NumberFormat::E5M2), true},
                {quantizeMx(moved, NumberFormat::E4M3, MxScaleRule::Floor, torchOps).stats, moved.size(-1) % 32 == 0},
                {quantizeMx(moved, NumberFormat::E2M1, MxScaleRule::Floor, torchOps).stats, moved.size(-1) % 32 == 0},
                {quantizeNvfp4(moved, torchOps).stats, moved.size(-1) % 16 == 0},
            };
            const auto rows = sweepFormats(x, blockLayout);
            QCOMPARE(rows.size(), expected.size());
            for (size_t i = 0; i < rows.size(); ++i) {
                const QString miss = statsMismatch(rows[i].stats, expected[i].first, expected[i].second);
                QVERIFY2(miss.isEmpty(), qPrintable(QString::fromStdString(rows[i].format) + ": " + miss));
            }
            // The block rows, bit for bit, as the CPU passes give them on the moved tensor.
            const QuantizationStats onMoved[] = {quantizeMx(moved, NumberFormat::E4M3, MxScaleRule::Floor).stats,
                                                 quantizeMx(moved, NumberFormat::E2M1, MxScaleRule::Floor).stats,
                                                 quantizeNvfp4(moved).stats};
            for (size_t i = 0; i < 3; ++i) {
                const QString miss = statsMismatch(rows[4 + i].stats, onMoved[i]);
                QVERIFY2(miss.isEmpty(), qPrintable(QString::fromStdString(rows[4 + i].format) + " exactly: " + miss));
            }
        }
    }

    // A scratch buffer changes where the CPU passes write, nothing else: the values and
    // the statistics are those of a call without it, bit for bit, and they lie in the
    // buffer (shaped as the input). A buffer of another size, or the input itself, is
    // refused rather than written past or over.
    void scratchBufferHoldsTheValues() {
        torch::manual_seed(31);
        const auto x = wideRandomValues(2 * 64 * 5 * 3, 31).reshape({2, 64, 5, 3});
        QuantizeOptions withScratch;
        withScratch.scratch = torch::full({x.numel()}, 7.0f);
        using Quantize = std::function<QuantizedTensor(const QuantizeOptions&)>;
        const std::vector<std::pair<const char*, Quantize>> quantizers = {
            {"fp16", [&](const QuantizeOptions& o) { return quantizeUnscaled(x, NumberFormat::Fp16, o); }},
            {"bf16", [&](const QuantizeOptions& o) { return quantizeUnscaled(x, NumberFormat::Bf16, o); }},
            {"e4m3", [&](const QuantizeOptions& o) { return quantizeWithScale(x, NumberFormat::E4M3, 0.125f, o); }},
            {"mxfp4", [&](const QuantizeOptions& o) {
                 return quantizeMx(x, NumberFormat::E2M1, MxScaleRule::Floor, o, BlockLayout::Channels);
             }},
            {"nvfp4", [&](const QuantizeOptions& o) { return quantizeNvfp4(x, o, BlockLayout::Channels); }},
        };
        for (const auto& [name, quantize] : quantizers) {
            const auto fresh = quantize(QuantizeOptions{});
            const auto inScratch = quantize(withScratch);
            QVERIFY2(inScratch.values.data_ptr() == withScratch.scratch.data_ptr(), name);
            QCOMPARE(inScratch.values.sizes(), x.sizes());
            QVERIFY2(fresh.values.data_ptr() != withScratch.scratch.data_ptr(), name);
            QVERIFY2(inScratch.values.view(torch::kInt32).equal(fresh.values.view(torch::kInt32)), name);
            const QString miss = statsMismatch(inScratch.stats, fresh.stats);
            QVERIFY2(miss.isEmpty(), qPrintable(QString(name) + ": " + miss));
        }
        QuantizeOptions tooSmall;
        tooSmall.scratch = torch::empty({x.numel() - 1});
        QVERIFY_THROWS_EXCEPTION(c10::Error, quantizeUnscaled(x, NumberFormat::Fp16, tooSmall));
        const auto contiguous = x.contiguous();
        QuantizeOptions overInput;
        overInput.scratch = contiguous.view({-1});
        QVERIFY_THROWS_EXCEPTION(c10::Error, quantizeNvfp4(contiguous, overInput));
    }

    // Drawn in parts (the passes draw a slab at a time into one buffer), the draws are
    // those of one call, and the generator ends where one call leaves it.
    void uniformDrawsInPartsAreOneDraw() {
        auto whole = at::detail::createCPUGenerator(9);
        auto inParts = at::detail::createCPUGenerator(9);
        const auto expected = uniformDraws(5000, whole, torch::kCPU);
        std::vector<float> got(5000, -1.0f);
        int64_t done = 0;
        for (const int64_t n : {int64_t{1}, int64_t{622}, int64_t{624}, int64_t{1000}, int64_t{2753}}) {
            uniformDrawsInto(got.data() + done, n, inParts);
            done += n;
        }
        QCOMPARE(done, int64_t{5000});
        const float* e = expected.data_ptr<float>();
        for (int64_t i = 0; i < done; ++i) QCOMPARE_BITS(got[static_cast<size_t>(i)], e[i]);
        QVERIFY(torch::equal(torch::rand({1000}, inParts), torch::rand({1000}, whole)));
    }

    // Stochastic rounding on the CPU passes draws a slab of the tensor at a time; the torch
    // ops draw the whole tensor first. Over tensors of several slabs, per-tensor and in
    // blocks (along the last dimension and across rows, with and without statistics), on
    // 1 and 3 threads (slabs of other sizes): the same values bit for bit, and the
    // generators left alike.
    void stochasticPassesDrawInSlabs() {
        torch::manual_seed(12);
        const auto values = torch::randn({7, 48, 33, 35}) * torch::exp2(torch::randint(-6, 6, {7, 48, 33, 35}).to(torch::kFloat));
        using Quantize = std::function<QuantizedTensor(const QuantizeOptions&)>;
        const std::vector<std::pair<QString, Quantize>> quantizers = {
            {"e5m2", [&](const QuantizeOptions& o) { return quantizeWithScale(values, NumberFormat::E5M2, 3.0f, o); }},
            {"mxfp4, channels",
             [&](const QuantizeOptions& o) {
                 return quantizeMx(values, NumberFormat::E2M1, MxScaleRule::Floor, o, BlockLayout::Channels);
             }},
            {"nvfp4, channels", [&](const QuantizeOptions& o) { return quantizeNvfp4(values, o, BlockLayout::Channels); }},
            {"nvfp4, last dimension", [&](const QuantizeOptions& o) { return quantizeNvfp4(values, o); }},
        };
        const int threads = at::get_num_threads();
        for (const int t : {1, 3}) {
            at::set_num_threads(t);
            for (const auto& [what, quantize] : quantizers) {
                for (const bool stats : {false, true}) {
                    QuantizeOptions pass, torchOps;
                    pass.collectStats = torchOps.collectStats = stats;
                    torchOps.cpuPasses = false;
                    pass.generator = at::detail::createCPUGenerator(21);
                    torchOps.generator = at::detail::createCPUGenerator(21);
                    const auto got = quantize(pass).values;
                    const QString miss = firstMismatch(got, toVector(quantize(torchOps).values));
                    const QString where = QString("%1 on %2 threads%3").arg(what).arg(t).arg(stats ? ", statistics" : "");
                    QVERIFY2(miss.isEmpty(), qPrintable(where + ": " + miss));
                    QVERIFY2(torch::equal(torch::rand({100}, *pass.generator), torch::rand({100}, *torchOps.generator)),
                             qPrintable(where + ": the generators went on differently"));
                }
            }
        }
        at::set_num_threads(threads);
    }

    void statisticsPassMatchesItsDefinition() {
        // The one-pass CPU statistics against their definition in torch ops (in double):
        // counts exact, sums to double rounding; and the same on 1 and 2 threads.
        for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 70}, std::vector<int64_t>{8, 16384}}) {
            int64_t n = 1;
            for (int64_t d : shape) n *= d;
            auto x = wideRandomValues(n, 5).reshape(shape);
            x.view(-1).index_put_({0}, NAN);
            x.view(-1).index_put_({1}, -INFINITY);
            x.view(-1).index_put_({2}, 0.0f);
            x.view(-1).index_put_({3}, 1e-30f);  // underflows in e4m3 at any sensible scale
            const auto out = quantizeWithScale(x, NumberFormat::E4M3, 0.25f);
            const auto q = out.values;
            const auto finite = torch::isfinite(x);
            const auto both = finite & torch::isfinite(q);
            const auto signal = torch::where(both, x.to(torch::kDouble), torch::zeros({}, torch::kDouble));
            const auto error = torch::where(both, q.to(torch::kDouble), torch::zeros({}, torch::kDouble)) - signal;
            const auto& s = out.stats;
            QCOMPARE(s.elements, n);
            QCOMPARE(s.nonFinite, n - finite.sum().item<int64_t>());
            const auto nonZero = finite & (x != 0);
            QCOMPARE(s.nonZero, nonZero.sum().item<int64_t>());
            QCOMPARE(s.underflowed, (nonZero & (q == 0)).sum().item<int64_t>());
            QCOMPARE(s.saturated, (finite & (x.abs() * 0.25f > 464.0f)).sum().item<int64_t>());  // rounds past 448
            QCOMPARE_BITS(s.amax, static_cast<double>(torch::where(finite, x.abs(), torch::zeros({})).max().item<float>()));
            auto close = [](double got, double expected) { return std::abs(got - expected) <= 1e-12 * std::abs(expected); };
            QVERIFY(close(s.squaredError, error.square().sum().item<double>()));
            QVERIFY(close(s.squaredSignal, signal.square().sum().item<double>()));
            QVERIFY(close(s.absoluteSignal, signal.abs().sum().item<double>()));
            QVERIFY(close(s.magnitudeError, (error * signal.sign()).sum().item<double>()));
            const int threads = at::get_num_threads();
            at::set_num_threads(1);
            const auto alone = quantizeWithScale(x, NumberFormat::E4M3, 0.25f).stats;
            at::set_num_threads(threads);
            QCOMPARE_BITS(alone.squaredError, s.squaredError);
            QCOMPARE_BITS(alone.magnitudeError, s.magnitudeError);
        }
    }

    void blocksWithNanOrInfBecomeNan() {
        auto x = torch::ones({2, 32});
        x.index_put_({0, 3}, NAN);
        const auto mx = quantizeMx(x, NumberFormat::E4M3, MxScaleRule::Floor).values;
        QVERIFY(torch::isnan(mx[0]).all().item<bool>());
        QVERIFY(torch::equal(mx[1], torch::ones({32})));
        x.index_put_({0, 3}, INFINITY);
        const auto nv = quantizeNvfp4(x.reshape({64})).stats;
        QCOMPARE(nv.nonFinite, int64_t{1});
        QCOMPARE(nv.blockScaleExponents.size(), size_t{1});  // the two finite blocks only
        QCOMPARE(nv.blockScaleExponents.begin()->second, int64_t{3});
    }

    // Stochastic rounding through the tensor path: 2.3 in e2m1 is 2 or 3, and the
    // mean of n draws is within 5 standard deviations (sqrt(0.3 * 0.7 / n)) of 2.3.
    void stochasticTensorIsUnbiased() {
        const int64_t n = 1 << 18;
        QuantizeOptions options;
        options.generator = at::detail::createCPUGenerator(5);
        const auto q = quantizeUnscaled(torch::full({n}, 2.3f), NumberFormat::E2M1, options).values;
        QVERIFY(((q == 2.0f) | (q == 3.0f)).all().item<bool>());
        const double mean = q.to(torch::kDouble).mean().item<double>();
        const double bound = 5 * std::sqrt(0.3 * 0.7 / double(n));
        QVERIFY2(std::fabs(mean - 2.3) < bound, qPrintable(QString("mean %1, bound %2").arg(mean).arg(bound)));
        // Nearest rounding of the same tensor is biased: every element goes to 2.
        QCOMPARE_BITS(quantizeUnscaled(torch::full({n}, 2.3f), NumberFormat::E2M1).values.mean().item<float>(), 2.0f);
        // Through NVFP4: every block of 16 holds 4.8 (the amax) and fifteen 2.3s, so
        // s_tensor = 4.8 / 2688, each block scale e4m3(4.8 / 6 / s_tensor) = 448 and
        // s_block * s_tensor = 0.8: 2.3 / 0.8 = 2.875 rounds to 2 or 3 (p = 0.875), and
        // the mean of the 2.3s must be within 5 standard deviations of 2.3.
        auto values = torch::full({n / 16, 16}, 2.3f);
        values.select(1, 0).fill_(4.8f);
        options.generator = at::detail::createCPUGenerator(6);
        const auto nv = quantizeNvfp4(values, options).values.narrow(1, 1, 15);
        const float total = 448.0f * (4.8f / 2688.0f);
        QVERIFY(((nv == 2.0f * total) | (nv == 3.0f * total)).all().item<bool>());
        const double nvMean = nv.to(torch::kDouble).mean().item<double>();
        const double nvBound = 5 * 0.8 * std::sqrt(0.875 * 0.125 / double(nv.numel()));
        QVERIFY2(std::fabs(nvMean - 2.3) < nvBound, qPrintable(QString("mean %1, bound %2").arg(nvMean).arg(nvBound)));
    }
    // ---- the format sweep ----------------------------------------------------------
    // 64 values: 1e5, thirty-one 1e-8 and thirty-two 1.0. fp16 overflows 1e5 (>= 65520)
    // and flushes 1e-8 (<= 2^-25); bf16 keeps both; with current scaling e4m3 multiplies
    // by 448 / 1e5, which flushes 1e-8 but keeps 1.0 (4.48e-3 > 2^-10); mxfp8's first
    // block takes the scale 2^(16 - 8) from 1e5 and crushes its 1e-8s, its second block
    // holds the 1.0s exactly.
    void formatSweepByHand() {
        std::vector<float> x(64, 1.0f);
        x[0] = 1e5f;
        for (int i = 1; i < 32; ++i) x[i] = 1e-8f;
        const auto rows = sweepFormats(torch::from_blob(x.data(), {2, 32}, torch::kFloat).clone());
        QStringList names;
        for (const auto& r : rows) names << QString::fromStdString(r.format);
        QCOMPARE(names, (QStringList{"fp16", "bf16", "e4m3", "e5m2", "mxfp8", "mxfp4", "nvfp4"}));
        QCOMPARE_BITS(rows[0].saturatedFraction(), 1.0 / 64);
        QCOMPARE_BITS(rows[0].underflowFraction(), 31.0 / 64);
        QCOMPARE_BITS(rows[1].saturatedFraction(), 0.0);
        QCOMPARE_BITS(rows[1].underflowFraction(), 0.0);
        QCOMPARE_BITS(rows[2].underflowFraction(), 31.0 / 64);
        QCOMPARE_BITS(rows[2].saturatedFraction(), 0.0);
        QCOMPARE_BITS(rows[4].underflowFraction(), 31.0 / 64);
        QCOMPARE(rows[4].stats.crushedByOutlier, int64_t{31});
        QCOMPARE(rows[4].stats.blockScaleExponents, (std::map<int, int64_t>{{-8, 1}, {8, 1}}));
        // Each row is the quantizer's own measurement.
        const auto x2 = torch::from_blob(x.data(), {2, 32}, torch::kFloat).clone();
        QCOMPARE_BITS(rows[3].stats.squaredError, quantizeCurrentScaling(x2, NumberFormat::E5M2).stats.squaredError);
        QCOMPARE_BITS(rows[6].stats.squaredError, quantizeNvfp4(x2).stats.squaredError);
        // On normal values, SNR follows the significand bits: fp16 (11) > bf16 (8) >
        // e4m3 and mxfp8 (4) > e5m2 (3) > mxfp4 and nvfp4 (2); each bit is ~6 dB.
        torch::manual_seed(8);
        const auto normal = sweepFormats(torch::randn({64, 256}));
        QVERIFY(normal[0].snrDb() > normal[1].snrDb() + 12);
        QVERIFY(normal[1].snrDb() > normal[2].snrDb() + 12);
        QVERIFY(normal[2].snrDb() > normal[3].snrDb() + 3);
        QVERIFY(normal[4].snrDb() > normal[3].snrDb() + 3);
        QVERIFY(normal[3].snrDb() > normal[5].snrDb() + 3);
        QVERIFY(normal[6].snrDb() > normal[5].snrDb());  // finer scales than mxfp4's
        for (const auto& r : normal) qInfo("%s SNR %.2f dB, underflow %.4f%%", r.format.c_str(), r.snrDb(),
                                           100 * r.underflowFraction());
    }
};

QTEST_APPLESS_MAIN(FormatsTest)
#include "test_formats.moc"
