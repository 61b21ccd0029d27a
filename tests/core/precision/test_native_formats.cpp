// The emulated formats against PyTorch's own dtypes, written by others from the same specifications
// (float8_e4m3fn, float8_e5m2, float8_e8m0fnu, float4_e2m1fn_x2, as far as the LibTorch at hand has
// them: common/TorchCompat.h). Both decode every code; both cast a seeded sample of fp32 values (all
// of fp32, the format's range and subnormals, exact ties between neighbouring codes and the ulps
// beside them, the saturation edge, signed zeros, infinities, NaN), the lab through its scalar codec
// and the tensor quantizers the modes run. Where PyTorch's rule differs on purpose, the case names
// the rule each side follows and compares the lab's rule that matches PyTorch's:
//   overflow: the lab saturates by default and has a non-saturating mode. PyTorch's e4m3fn cast
//     gives NaN up to 2.11 and saturates from 2.12, +-Inf included (seen on 2.14: +-448); its
//     e5m2 cast gives +-Inf. The lab's saturation meets PyTorch's cast of the values clamped to +-max.
//   e8m0: the lab rounds to a power of two by floor or ceil (the MX scale rules); PyTorch rounds
//     2^e * (1 + f) up when f >= 1/2 and drops the sign. Each positive value meets the lab's rule
//     that agrees with PyTorch's for it; zero and negative values have no e8m0 code in the lab.
//   e2m1: float4_e2m1fn_x2 is storage, two codes a byte, without a cast kernel: where PyTorch
//     cannot decode it, there is nothing of PyTorch's to compare.
#include <QtTest/QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ExactCompare.h"
#include "common/TorchCompat.h"
#include "precision/formats/FormatTable.h"
#include "precision/formats/ScalarCodec.h"
#include "precision/formats/ScalingRules.h"
#include "precision/formats/TensorQuantizers.h"

using namespace ampscope;

namespace {

constexpr int64_t kSampleSize = 1'000'000;
constexpr uint64_t kSeed = 0x6e617469766546ull;

// Each case skips, with its reason, where the LibTorch lacks the dtype it compares with.
#define SKIP_UNLESS(has, dtype, version)                                           \
    if (!(has))                                                                    \
    QSKIP("LibTorch " TORCH_VERSION " has no " dtype " (PyTorch " version " added it): " \
          "no native truth to compare the emulation with")
#define SKIP_UNLESS_FLOAT8() SKIP_UNLESS(AMPSCOPE_TORCH_HAS_FLOAT8, "float8_e4m3fn or float8_e5m2", "2.1")

// The first few differences and how many there were, for one message per comparison.
struct Mismatches {
    int64_t count = 0;
    std::string lines;
    void add(float input, const std::string& detail) {
        if (count++ < 8) lines += "\n  input " + test::describeBits(input) + ": " + detail;
    }
    std::string report(const std::string& what, int64_t compared) const {
        return std::to_string(count) + " of " + std::to_string(compared) + " " + what + " differ:" + lines;
    }
};

std::string codeText(NumberFormat format, uint32_t code) {
    return QString::asprintf("0x%02x (%g)", code, decode(format, code)).toStdString();
}
bool sameCode(NumberFormat format, uint32_t a, uint32_t b) {
    return a == b || (std::isnan(decode(format, a)) && std::isnan(decode(format, b)));
}

float stepUlps(float x, int steps) {
    for (int i = 0; i < std::abs(steps); ++i) x = std::nextafter(x, steps > 0 ? INFINITY : -INFINITY);
    return x;
}

// count values in ten kinds, then the special values; see the file's first comment.
std::vector<float> castSample(NumberFormat format, int64_t count, uint64_t seed) {
    const FormatDescription& d = describe(format);
    std::vector<double> codes;  // the positive finite values in increasing order: where the ties lie
    for (uint32_t c = 0; c < (1u << (d.bits - 1)); ++c)
        if (std::isfinite(decode(format, c))) codes.push_back(decode(format, c));
    // The tie between the largest value and the code an unbounded exponent would have next.
    const double tieAboveMax = d.maxFinite + std::ldexp(1.0, d.maxExponent() - d.mantissaBits - 1);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> nearRange(d.minExponent() - d.mantissaBits - 2, d.maxExponent() + 1);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    std::vector<float> v;
    v.reserve(static_cast<size_t>(count) + 32);
    for (int64_t i = 0; i < count; ++i) {
        const uint32_t mantissa = static_cast<uint32_t>(rng()) & 0x7FFFFFu;
        double x = 0.0;
        switch (i % 10) {
            case 0: case 1: {  // anywhere in fp32, its subnormals too, never Inf or NaN
                const auto bits = static_cast<uint32_t>(rng());
                v.push_back(std::bit_cast<float>((bits & 0x7F800000u) == 0x7F800000u ? bits ^ 0x40000000u : bits));
                continue;
            }
            case 2: case 3: case 4:  // the format's normals and subnormals, and a binade either side
                x = std::bit_cast<float>(static_cast<uint32_t>(nearRange(rng) + 127) << 23 | mantissa);
                break;
            case 5:  // the format's subnormals, 24 random bits below its smallest normal
                x = std::ldexp(static_cast<double>(rng() & 0xFFFFFFu), d.minExponent() - 24);
                break;
            case 6: case 7: {  // a tie between neighbours (the one above max too), or 1-2 ulps beside it
                const size_t k = pick(codes.size());
                const double tie = k + 1 < codes.size() ? (codes[k] + codes[k + 1]) / 2 : tieAboveMax;
                const int steps = static_cast<int>(pick(9)) - 4;
                x = stepUlps(static_cast<float>(tie), std::abs(steps) <= 2 ? steps : 0);
                break;
            }
            case 8: {  // the saturation edge: max, the tie above it, the code after, ulps off them; 2^(emax-1..emax+3)
                const double bases[] = {d.maxFinite, tieAboveMax, 2 * tieAboveMax - d.maxFinite};
                x = pick(2) ? stepUlps(static_cast<float>(bases[pick(3)]), static_cast<int>(pick(7)) - 3)
                            : std::ldexp(1.0 + mantissa * 0x1p-23, d.maxExponent() - 1 + static_cast<int>(pick(4)));
                break;
            }
            default:  // the codes themselves
                x = codes[pick(codes.size())];
        }
        v.push_back(static_cast<float>(rng() & 1 ? -x : x));
    }
    const float tiny = static_cast<float>(d.minSubnormal);
    for (float s : {1.0f, -1.0f})
        for (float x : {0.0f, INFINITY, NAN, std::bit_cast<float>(0x7F800001u), std::numeric_limits<float>::max(),
                        std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(), tiny / 2,
                        3 * tiny / 2, static_cast<float>(d.minNormal), static_cast<float>(d.maxFinite),
                        static_cast<float>(tieAboveMax), std::nextafter(static_cast<float>(tieAboveMax), INFINITY)})
            v.push_back(std::copysign(x, s));
    return v;
}

torch::Tensor asTensor(const std::vector<float>& values) { return torch::tensor(values); }

std::vector<float> asVector(const torch::Tensor& t) {
    const auto c = t.to(torch::kFloat).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

// Undefined where this LibTorch lacks it (the cases using it skip there).
c10::ScalarType nativeType(NumberFormat format) {
    switch (format) {
#if AMPSCOPE_TORCH_HAS_FLOAT8
        case NumberFormat::E4M3: return at::kFloat8_e4m3fn;
        case NumberFormat::E5M2: return at::kFloat8_e5m2;
#endif
#if AMPSCOPE_TORCH_HAS_FLOAT8_E8M0
        case NumberFormat::E8M0: return at::kFloat8_e8m0fnu;
#endif
#if AMPSCOPE_TORCH_HAS_FLOAT4_E2M1_X2
        case NumberFormat::E2M1: return at::kFloat4_e2m1fn_x2;
#endif
        default: return c10::ScalarType::Undefined;
    }
}

std::vector<uint8_t> nativeCodes(const torch::Tensor& values, NumberFormat format) {
    const auto codes = values.to(nativeType(format)).view(torch::kUInt8).contiguous();
    return {codes.data_ptr<uint8_t>(), codes.data_ptr<uint8_t>() + codes.numel()};
}

// PyTorch's rule for a finite value past the largest one, and for +-Inf, as stated above.
OverflowPolicy statedFiniteOverflow(NumberFormat format) {
    return format == NumberFormat::E4M3 && AMPSCOPE_TORCH_AT_LEAST(2, 12) ? OverflowPolicy::Saturate
                                                                          : OverflowPolicy::NonSaturating;
}
// And for +-Inf: the same rule.
OverflowPolicy statedInfinity(NumberFormat format) { return statedFiniteOverflow(format); }

const char* ruleName(NumberFormat f, OverflowPolicy p) {
    return p == OverflowPolicy::Saturate ? "+-max" : (describe(f).hasInf() ? "+-Inf" : "NaN");
}

// What PyTorch's cast does with one value of the kind, in the lab's words.
OverflowPolicy observedRule(NumberFormat format, float value) {
    const double got = decode(format, nativeCodes(asTensor({value}), format)[0]);
    return std::fabs(got) == describe(format).maxFinite ? OverflowPolicy::Saturate : OverflowPolicy::NonSaturating;
}

// PyTorch's cast and back to fp32; saturating, its cast of the values clamped to +-max.
torch::Tensor nativeRound(const torch::Tensor& x, NumberFormat format) {
    return x.to(nativeType(format)).to(torch::kFloat);
}
torch::Tensor nativeSaturate(const torch::Tensor& x, NumberFormat format) {
    return nativeRound(x.clamp(-describe(format).maxFinite, describe(format).maxFinite), format);
}

QuantizeOptions quantizerPath(bool cpuPasses, OverflowPolicy overflow = OverflowPolicy::Saturate) {
    return {.overflow = overflow, .generator = {}, .collectStats = false, .cpuPasses = cpuPasses, .scratch = {}};
}

void compareValues(Mismatches& m, const std::vector<float>& input, const torch::Tensor& lab,
                   const torch::Tensor& native) {
    const auto a = asVector(lab), b = asVector(native);
    for (size_t i = 0; i < input.size(); ++i)
        if (!test::sameBits(a[i], b[i]))
            m.add(input[i], "lab " + test::describeBits(a[i]) + ", PyTorch " + test::describeBits(b[i]));
}

void addFormatRows(std::initializer_list<NumberFormat> formats) {
    QTest::addColumn<int>("format");
    for (auto f : formats) QTest::newRow(describe(f).name) << static_cast<int>(f);
}

NumberFormat fetchedFormat() {
    QFETCH(int, format);
    return static_cast<NumberFormat>(format);
}

}  // namespace

class TestNativeFormats : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyCodeDecodesAlike_data() {
        addFormatRows({NumberFormat::E4M3, NumberFormat::E5M2, NumberFormat::E8M0, NumberFormat::E2M1});
    }

    // Every byte through PyTorch's dtype (a view of the bytes, cast to fp32) and through
    // the scalar codec's decode; NaN codes compare as both NaN.
    void everyCodeDecodesAlike() {
        const auto f = fetchedFormat();
        SKIP_UNLESS_FLOAT8();
        const auto bytes = torch::arange(256, torch::kInt32).to(torch::kUInt8);
        std::vector<float> native, lab;
        if (f == NumberFormat::E2M1) {
            SKIP_UNLESS(AMPSCOPE_TORCH_HAS_FLOAT4_E2M1_X2, "float4_e2m1fn_x2", "2.8");
            try {
                native = asVector(nativeRound(bytes.view(nativeType(f)), f));
            } catch (const c10::Error&) {
                QSKIP("LibTorch " TORCH_VERSION "'s float4_e2m1fn_x2 is storage only, with no cast to fp32: "
                      "PyTorch has no decode of e2m1 codes to compare the lab's with");
            }
            // Its header's layout: the first value in bits 3..0, the second in bits 7..4.
            QVERIFY2(native.size() == 512, "a cast of 256 packed bytes should give two values a byte");
            for (uint32_t byte = 0; byte < 256; ++byte)
                for (uint32_t nibble : {byte & 0xFu, byte >> 4}) lab.push_back(static_cast<float>(decode(f, nibble)));
        } else {
            if (f == NumberFormat::E8M0) SKIP_UNLESS(AMPSCOPE_TORCH_HAS_FLOAT8_E8M0, "float8_e8m0fnu", "2.7");
            native = asVector(nativeRound(bytes.view(nativeType(f)), f));
            for (uint32_t code = 0; code < 256; ++code) lab.push_back(static_cast<float>(decode(f, code)));
        }
        Mismatches m;
        compareValues(m, lab, asTensor(lab), asTensor(native));
        QVERIFY2(m.count == 0, m.report("decoded codes", static_cast<int64_t>(lab.size())).c_str());
    }

    void castsMatchTheScalarCodec_data() { addFormatRows({NumberFormat::E4M3, NumberFormat::E5M2}); }

    // PyTorch's overflow rules first (the comparisons rest on them), then every value of
    // the sample: PyTorch's cast against encode() under the rule PyTorch follows for it,
    // and PyTorch's cast of the clamped value against encode()'s default, saturation.
    void castsMatchTheScalarCodec() {
        const auto f = fetchedFormat();
        SKIP_UNLESS_FLOAT8();
        const FormatDescription& d = describe(f);
        const auto over = static_cast<float>(4 * d.maxFinite);
        for (float v : {over, -over, INFINITY, -INFINITY}) {
            const OverflowPolicy stated = std::isinf(v) ? statedInfinity(f) : statedFiniteOverflow(f);
            const std::string why = std::string("PyTorch " TORCH_VERSION "'s cast to ") + d.name + " of " +
                                    std::to_string(v) + " is stated to give " + ruleName(f, stated);
            QVERIFY2(observedRule(f, v) == stated, why.c_str());
        }
        qInfo("%s: PyTorch %s's cast gives %s for a finite overflow and %s for +-Inf; the lab gives +-max unless "
              "told not to saturate", d.name, TORCH_VERSION, ruleName(f, statedFiniteOverflow(f)),
              ruleName(f, statedInfinity(f)));
        const auto sample = castSample(f, kSampleSize, kSeed + static_cast<int>(f));
        const auto x = asTensor(sample);
        const auto own = nativeCodes(x, f);
        const auto saturated = nativeCodes(x.clamp(-d.maxFinite, d.maxFinite), f);
        Mismatches byRule, bySaturation;
        for (size_t i = 0; i < sample.size(); ++i) {
            const float v = sample[i];
            const uint32_t lab = *encode(f, v, std::isinf(v) ? statedInfinity(f) : statedFiniteOverflow(f));
            if (!sameCode(f, lab, own[i]))
                byRule.add(v, "lab " + codeText(f, lab) + ", PyTorch " + codeText(f, own[i]));
            const uint32_t labSaturating = *encode(f, v);
            if (!sameCode(f, labSaturating, saturated[i]))
                bySaturation.add(v, "lab " + codeText(f, labSaturating) + ", PyTorch of the clamped value " +
                                        codeText(f, saturated[i]));
        }
        const auto n = static_cast<int64_t>(sample.size());
        qInfo("%s: %lld fp32 values cast by PyTorch and by the scalar codec, under PyTorch's overflow rule and "
              "saturating", d.name, static_cast<long long>(n));
        QVERIFY2(byRule.count == 0, byRule.report("codes under PyTorch's overflow rule", n).c_str());
        QVERIFY2(bySaturation.count == 0, bySaturation.report("saturated codes", n).c_str());
    }

    void castsMatchTheTensorQuantizers_data() { castsMatchTheScalarCodec_data(); }

    // The same sample through the quantizers the modes run, both the CPU passes and the
    // torch ops: unscaled, and per-tensor with a scale that is not a power of two (the
    // product and the dequantizing product are fp32 on both sides, so they agree exactly).
    void castsMatchTheTensorQuantizers() {
        const auto f = fetchedFormat();
        SKIP_UNLESS_FLOAT8();
        const auto sample = castSample(f, kSampleSize, kSeed + 16 + static_cast<int>(f));
        const auto x = asTensor(sample);
        const float scale = 3.0f / 7.0f;
        // A non-saturating truth where PyTorch's rules are the lab's non-saturating mode throughout.
        const bool nativeIsNonSaturating = statedFiniteOverflow(f) == OverflowPolicy::NonSaturating;
        for (bool cpuPasses : {true, false}) {
            const auto options = quantizerPath(cpuPasses);
            Mismatches m;
            compareValues(m, sample, quantizeUnscaled(x, f, options).values, nativeSaturate(x, f));
            compareValues(m, sample, quantizeWithScale(x, f, scale, options).values,
                          nativeSaturate(x * scale, f) * (1.0f / scale));
            const bool both = !cpuPasses && nativeIsNonSaturating;  // the CPU passes only saturate
            if (both) {
                const auto nonSaturating = quantizerPath(false, OverflowPolicy::NonSaturating);
                compareValues(m, sample, quantizeUnscaled(x, f, nonSaturating).values, nativeRound(x, f));
                compareValues(m, sample, quantizeWithScale(x, f, scale, nonSaturating).values,
                              nativeRound(x * scale, f) * (1.0f / scale));
            }
            const auto n = static_cast<int64_t>(sample.size()) * (both ? 4 : 2);
            const char* path = cpuPasses ? "CPU passes" : "torch ops";
            qInfo("%s: %lld values through the %s, unscaled and scaled, %s", describe(f).name,
                  static_cast<long long>(n), path, both ? "saturating and not" : "saturating");
            QVERIFY2(m.count == 0, m.report(std::string("values of the ") + path, n).c_str());
        }
    }

    void mxElementsMatchTheCasts_data() { castsMatchTheScalarCodec_data(); }

    // MXFP8: each block of 32 divided by its scale 2^e (the lab's floor rule; the scale
    // rule itself is checked against the MX specification in test_formats), the
    // elements cast by PyTorch (saturating, as MX elements do), times 2^e.
    void mxElementsMatchTheCasts() {
        const auto f = fetchedFormat();
        SKIP_UNLESS_FLOAT8();
        // Finite values of every kind, each block shifted by its own power of two.
        std::vector<float> sample;
        std::mt19937_64 rng(kSeed + 32 + static_cast<int>(f));
        const int64_t blocks = kSampleSize / kMxBlockSize;
        int shift = 0;
        for (float v : castSample(f, 2 * kSampleSize, kSeed + 48 + static_cast<int>(f))) {
            if (static_cast<int64_t>(sample.size()) == blocks * kMxBlockSize) break;
            if (!std::isfinite(v) || std::fabs(v) > 0x1p60f || (v != 0 && std::fabs(v) < 0x1p-60f)) continue;
            if (sample.size() % kMxBlockSize == 0) shift = static_cast<int>(rng() % 121) - 60;
            sample.push_back(std::ldexp(v, shift));
        }
        QCOMPARE(static_cast<int64_t>(sample.size()), blocks * kMxBlockSize);
        const auto x = asTensor(sample).view({blocks, kMxBlockSize});
        std::vector<float> inverse, scale;
        for (const float amax : asVector(x.abs().amax(1))) {
            const int e = mxScaleExponent(amax, f, MxScaleRule::Floor);
            inverse.push_back(std::ldexp(1.0f, -e)), scale.push_back(std::ldexp(1.0f, e));
        }
        const auto column = [&](const std::vector<float>& v) { return asTensor(v).view({blocks, 1}); };
        const auto expected = nativeSaturate(x * column(inverse), f) * column(scale);
        for (bool cpuPasses : {true, false}) {
            Mismatches m;
            compareValues(m, sample, quantizeMx(x, f, MxScaleRule::Floor, quantizerPath(cpuPasses)).values.flatten(),
                          expected.flatten());
            qInfo("%s: %lld MX elements through the %s", describe(f).name, static_cast<long long>(sample.size()),
                  cpuPasses ? "CPU passes" : "torch ops");
            QVERIFY2(m.count == 0, m.report("MX elements", static_cast<int64_t>(sample.size())).c_str());
        }
    }

    // e8m0: PyTorch rounds a normal 2^e * (1 + f) up when f >= 1/2 and an fp32 subnormal v
    // up when v > 2^-127, which is the lab's ceil there and its floor elsewhere; past 2^127
    // and for +-Inf and NaN both give NaN, the lab in its non-saturating mode.
    void e8m0CastMatchesTheLabsRoundings() {
        SKIP_UNLESS(AMPSCOPE_TORCH_HAS_FLOAT8_E8M0, "float8_e8m0fnu", "2.7");
        std::mt19937_64 rng(kSeed + 64);
        std::vector<float> sample;
        for (int64_t i = 0; i < kSampleSize; ++i) {
            // Any fp32 bits (Inf and NaN too); a tie 1.5 * 2^e or a power of two, or ulps
            // beside them; an fp32 subnormal.
            const auto bits = static_cast<uint32_t>(rng());
            const uint32_t kinds[] = {bits, (bits & 0x7F800000u) | 0x400000u, bits & 0x7F800000u, bits & 0x7FFFFFu};
            const float v = std::bit_cast<float>(kinds[i % 4]);
            sample.push_back(i % 4 == 1 || i % 4 == 2 ? stepUlps(v, static_cast<int>(rng() % 5) - 2) : v);
        }
        sample.insert(sample.end(), {INFINITY, NAN, -NAN, std::numeric_limits<float>::max(), 0x1p127f, 0x1.8p127f,
                                     0x1p-126f, 0x1p-127f, 0x1.8p-127f, std::numeric_limits<float>::denorm_min()});
        std::vector<uint8_t> native;
        try {
            native = nativeCodes(asTensor(sample), NumberFormat::E8M0);
        } catch (const c10::Error&) {
            QSKIP("LibTorch " TORCH_VERSION " has no cast from fp32 to float8_e8m0fnu: decoding compared only");
        }
        Mismatches m;
        int64_t compared = 0;
        for (size_t i = 0; i < sample.size(); ++i) {
            const float v = sample[i];
            if (v <= 0.0f) continue;  // zero and negative values, -Inf too: no code in the lab
            const uint32_t bits = std::bit_cast<uint32_t>(v);
            const bool up = (bits & 0x7F800000u) == 0 || (bits & 0x400000u) != 0;
            const uint32_t lab = *encodeE8m0(v, up ? PowerOfTwoRounding::Ceil : PowerOfTwoRounding::Floor,
                                             OverflowPolicy::NonSaturating);
            ++compared;
            if (lab != native[i])
                m.add(v, std::string(up ? "ceil " : "floor ") + codeText(NumberFormat::E8M0, lab) + ", PyTorch " +
                             codeText(NumberFormat::E8M0, native[i]));
        }
        qInfo("e8m0: %lld positive fp32 values and NaN cast by PyTorch and by the lab's floor or ceil (zero and "
              "negative values left out)", static_cast<long long>(compared));
        QVERIFY2(m.count == 0, m.report("e8m0 codes", compared).c_str());
    }
};

QTEST_APPLESS_MAIN(TestNativeFormats)
#include "test_native_formats.moc"
