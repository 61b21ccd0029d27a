// The formats' edge cases that the broad suite (test_formats) passed over, each worked
// out by hand from the specifications: OCP Microscaling Formats (MX) v1.0 for e8m0 and the
// MX block rule, OCP 8-bit Floating Point (OFP8) for e4m3, IEEE 754 for fp16 and bf16
// (round to nearest, ties to even), Transformer Engine's recipes for the per-tensor and
// NVFP4 scales (as core/precision/formats/ScalingRules.h states them). Each case is one a
// mutation of the code survived in test_formats (tests/tools/mutation-report-precision-run.md).
#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ExactCompare.h"
#include "precision/formats/CpuQuantizeLoops.h"
#include "precision/formats/FormatTable.h"
#include "precision/formats/ScalarCodec.h"
#include "precision/formats/ScalingRules.h"
#include "precision/formats/ValueInFormats.h"

using namespace ampscope;

namespace {

float floatOfBits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

}  // namespace

class FormatEdgesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ---- e8m0 (OCP MX v1.0, 5.4.1): codes 0..254 are 2^(code - 127), 0xFF is NaN ------
    void e8m0LargestCodeAndOverflow() {
        using R = PowerOfTwoRounding;
        const auto non = OverflowPolicy::NonSaturating;
        // 2^127 is the largest code (254 = 0xFE), with or without saturation.
        QCOMPARE(*encodeE8m0(std::ldexp(1.0, 127), R::Floor, non), 0xFEu);
        QCOMPARE(*encodeE8m0(std::ldexp(1.0, 127), R::Ceil, non), 0xFEu);
        // Infinity has no code: saturated it is the largest, otherwise the NaN code.
        QCOMPARE(*encodeE8m0(INFINITY, R::Floor, OverflowPolicy::Saturate), 0xFEu);
        QCOMPARE(*encodeE8m0(INFINITY, R::Floor, non), 0xFFu);
        // A power of two is its own ceiling: 1 -> 127, 0.5 -> 126, 2^-127 -> 0.
        QCOMPARE(*encodeE8m0(1.0, R::Ceil), 127u);
        QCOMPARE(*encodeE8m0(0.5, R::Ceil), 126u);
        QCOMPARE(*encodeE8m0(std::ldexp(1.0, -127), R::Ceil), 0u);
    }

    void blockScaleUpToTheLargestExponent() {
        // e8m0 holds exponents -127..127: 127 is code 254 and scales exactly.
        const BlockScaledCast top = castUnderBlockScale(NumberFormat::E4M3, 127, std::ldexp(1.0, 127));
        QCOMPARE(top.scaleBits, uint32_t{254});
        QCOMPARE(*top.element.bits, uint32_t{0x38});  // 1.0 in e4m3: exponent field 7, mantissa 0
        QCOMPARE_BITS(top.value, std::ldexp(1.0, 127));
    }

    // ---- what a cast did --------------------------------------------------------------
    void largestFiniteIsExactAndTheSmallestNormalIsNormal() {
        // The largest finite value of a format is held exactly: not a saturation.
        QCOMPARE(castTo("e4m3", 448.0).outcome, CastOutcome::Exact);
        QCOMPARE(castTo("fp16", 65504.0).outcome, CastOutcome::Exact);
        QCOMPARE(castTo("e2m1", -6.0).outcome, CastOutcome::Exact);
        // Just below fp16's smallest normal 2^-14, within half a subnormal step (2^-25):
        // nearest rounding gives 2^-14 itself, a normal number.
        const ValueCast up = castTo("fp16", 0x1p-14 - 0x1p-26);
        QCOMPARE(*up.bits, uint32_t{0x0400});
        QCOMPARE(up.outcome, CastOutcome::Rounded);
        // e4m3's smallest normal is 2^-6; 2^-6 - 2^-11 rounds up onto it.
        QCOMPARE(castTo("e4m3", 0x1p-6 - 0x1p-11).outcome, CastOutcome::Rounded);
    }

    // ---- per-tensor and NVFP4 scales -------------------------------------------------
    void perTensorScaleKeepsThePreviousOne() {
        // scale = maxFinite / amax / 2^margin; an amax of 0 or not finite keeps the previous.
        QCOMPARE_BITS(perTensorScale(INFINITY, NumberFormat::E4M3, 0, 3.0f), 3.0f);
        QCOMPARE_BITS(perTensorScale(NAN, NumberFormat::E4M3, 0, 3.0f), 3.0f);
        // An amax in fp32's subnormals gives 448 / 1e-45 = inf in fp32: no scale, the
        // previous one stays.
        QCOMPARE_BITS(perTensorScale(1e-45f, NumberFormat::E4M3, 0, 2.0f), 2.0f);
        QCOMPARE_BITS(perTensorScale(224.0f, NumberFormat::E4M3, 1, 2.0f), 1.0f);
    }

    void nvfp4TensorScaleOfNothingIsOne() {
        QCOMPARE_BITS(nvfp4TensorScale(0.0f), 1.0f);
        QCOMPARE_BITS(nvfp4TensorScale(INFINITY), 1.0f);
        QCOMPARE_BITS(nvfp4TensorScale(2688.0f), 1.0f);  // 448 * 6
    }

    void delayedScalingRemembersOnlyFiniteAmaxes() {
        // An overflowed tensor (amax Inf) takes no part: the scale and the amax it came
        // from stay those of the last finite amax, for both ways of combining the history.
        for (const auto compute : {DelayedScaling::AmaxCompute::MostRecent, DelayedScaling::AmaxCompute::Max}) {
            DelayedScaling d(NumberFormat::E4M3, 4, compute);
            d.record(10.0f);
            d.record(INFINITY);
            QCOMPARE_BITS(d.scale(), 448.0f / 10.0f);
            QCOMPARE_BITS(d.scaleAmax(), 10.0f);
        }
    }

    // ---- the CPU passes against the scalar rules -------------------------------------
    void stochasticDrawEqualToTheFractionRoundsDown() {
        // e2m1 between 2 and 3 the spacing is 1: 2.5 is 2 + 0.5, rounded up when the draw
        // is below the fraction 0.5 (the scalar codec's rule), down at 0.5 itself.
        const auto r = cpu_quantize::elementRounding(NumberFormat::E2M1);
        const float x[3] = {2.5f, 2.5f, 2.25f};
        const float u[3] = {0.5f, 0.4999f, 0.25f};
        float out[3];
        cpu_quantize::roundScaled(x, out, 3, r, 1.0f, 1.0f, u);
        QCOMPARE_BITS(out[0], 2.0f);
        QCOMPARE_BITS(out[1], 3.0f);
        QCOMPARE_BITS(out[2], 2.0f);
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 2.5, 0.5), 0x4u);  // the scalar rule: 2
    }

    void aDrawOfZeroRoundsEveryInexactValueUp() {
        // u = 0, the lowest draw of [0, 1), is below every fraction > 0: up, wherever
        // nearest rounding would go (2.25 -> 3, not the nearest 2); an exact value stays.
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 2.25, 0.0), 0x5u);
        QCOMPARE(*encodeStochastic(NumberFormat::E4M3, 1.0 + 0x1p-6, 0.0), 0x39u);  // 1 + 2^-3
        QCOMPARE(*encodeStochastic(NumberFormat::E2M1, 3.0, 0.0), 0x5u);
    }

    void onlyFiniteValuesCountAsSaturated() {
        // Inf saturates to +-448 too, but only a finite value that rounded past 448 counts.
        const auto r = cpu_quantize::elementRounding(NumberFormat::E4M3);
        const float x[4] = {INFINITY, 1000.0f, -INFINITY, 448.0f};
        float out[4];
        cpu_quantize::Counts counts;
        cpu_quantize::roundScaled(x, out, 4, r, 1.0f, 1.0f, nullptr, &counts);
        QCOMPARE_BITS(out[0], 448.0f);
        QCOMPARE_BITS(out[1], 448.0f);
        QCOMPARE_BITS(out[2], -448.0f);
        QCOMPARE(counts.saturated, int64_t{1});
    }

    void mxRceilAtExactlyTheLargestElement() {
        // rceil: the smallest X = 2^e with amax / X <= 6 (e2m1). amax 6 is 6 * 2^0: X = 1,
        // so 1.5 stays 1.5 (a larger X = 2 would give 0.75 -> 1 (tie to even) -> 2).
        std::vector<float> x(kMxBlockSize, 0.0f);
        x[0] = 6.0f;
        x[1] = 1.5f;
        std::vector<float> out(x.size());
        const cpu_quantize::BlockedView view{1, kMxBlockSize, 1};
        cpu_quantize::quantizeMx(x.data(), out.data(), view, 0, 1, NumberFormat::E2M1, true);
        QCOMPARE_BITS(out[0], 6.0f);
        QCOMPARE_BITS(out[1], 1.5f);
        QCOMPARE(mxScaleExponent(6.0, NumberFormat::E2M1, MxScaleRule::Rceil), 0);
    }

    void blockCountsOfZeroAndTinyBlocks() {
        // An all-zero block: counted as a block, with no scale exponent, no zero-scale block
        // and nothing crushed (no element was non-zero).
        std::vector<float> zeros(kNvfp4BlockSize, 0.0f), out(kNvfp4BlockSize);
        const cpu_quantize::BlockedView nvView{1, kNvfp4BlockSize, 1};
        cpu_quantize::Counts nv;
        cpu_quantize::quantizeNvfp4(zeros.data(), out.data(), nvView, 0, 1, 1.0f, nullptr, &nv);
        QCOMPARE(nv.blocks, int64_t{1});
        QCOMPARE(nv.zeroScaleBlocks, int64_t{0});
        QCOMPARE(nv.crushedByOutlier, int64_t{0});
        for (const int64_t n : nv.exponents) QCOMPARE(n, int64_t{0});

        std::vector<float> mxZeros(kMxBlockSize, 0.0f), mxOut(kMxBlockSize);
        const cpu_quantize::BlockedView mxView{1, kMxBlockSize, 1};
        cpu_quantize::Counts mx;
        cpu_quantize::quantizeMx(mxZeros.data(), mxOut.data(), mxView, 0, 1, NumberFormat::E4M3, false,
                                 nullptr, &mx);
        QCOMPARE(mx.blocks, int64_t{1});
        for (const int64_t n : mx.exponents) QCOMPARE(n, int64_t{0});

        // A block too small for its e4m3 scale: amax 2^-20 under s_tensor 1 gives
        // 2^-20 / 6, below half of e4m3's smallest subnormal 2^-9: the scale is 0 and the
        // block zeros. A zero-scale block; nothing is "crushed by an outlier" (no element
        // of it survived to be the outlier).
        std::vector<float> tiny(kNvfp4BlockSize, std::ldexp(1.0f, -20));
        cpu_quantize::Counts t;
        cpu_quantize::quantizeNvfp4(tiny.data(), out.data(), nvView, 0, 1, 1.0f, nullptr, &t);
        QCOMPARE_BITS(out[0], 0.0f);
        QCOMPARE(t.zeroScaleBlocks, int64_t{1});
        QCOMPARE(t.crushedByOutlier, int64_t{0});
    }

    void bf16RoundsTiesToEvenAndSaturatesInfinity() {
        // bf16 keeps 7 fraction bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 and goes to
        // the even 1; 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6, even: 1 + 2^-6.
        const float x[5] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -(1.0f + 0x1p-8f), INFINITY, -INFINITY};
        float out[5];
        cpu_quantize::Counts counts;
        cpu_quantize::roundBf16(x, out, 5, &counts);
        QCOMPARE_BITS(out[0], 1.0f);
        QCOMPARE_BITS(out[1], 1.0f + 0x1p-6f);
        QCOMPARE_BITS(out[2], -1.0f);
        // Saturating: Inf becomes bf16's largest value (0x7F7F), and is not counted.
        QCOMPARE_BITS(out[3], floatOfBits(0x7F7F0000u));
        QCOMPARE_BITS(out[4], floatOfBits(0xFF7F0000u));
        QCOMPARE(counts.saturated, int64_t{0});
    }
};

QTEST_APPLESS_MAIN(FormatEdgesTest)
#include "test_format_edges.moc"
