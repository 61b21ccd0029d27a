#include "precision/formats/CpuQuantizeLoops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "precision/formats/ScalingRules.h"

namespace ampscope::cpu_quantize {

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

uint32_t bitsOf(float v) {
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}
float floatOf(uint32_t b) {
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

// Rounds a non-negative float below 2^23 to an integer, ties to even: adding 2^23
// leaves no fraction bits, and the FPU's default mode rounds that addition to nearest
// even. (The codebase builds without -ffast-math, so the sum is not folded away.)
float roundHalfEven(float units) {
    constexpr float kShift = 8388608.0f;  // 2^23
    return units < kShift ? (units + kShift) - kShift : units;
}

// As roundElements() in TensorQuantizers.cpp: the exponent field f of |x|, clamped
// to [minField, 254] (NaN and Inf take 254 and stay NaN and Inf), scales |x| by
// 2^(M - e) and back by 2^(e - M), both exact powers of two.
// uniform < 0: nearest even; else stochastic: up when uniform < the fraction, as
// roundElements() decides it.
inline float roundElement(float x, const ElementRounding& r, float uniform = -1.0f) {
    const uint32_t magnitudeBits = bitsOf(x) & 0x7fffffffu;
    const float magnitude = floatOf(magnitudeBits);
    const int field = std::clamp(static_cast<int>(magnitudeBits >> 23), r.minField, 254);
    const float down = floatOf(static_cast<uint32_t>(r.mantissaBits + 254 - field) << 23);
    const float up = floatOf(static_cast<uint32_t>(field - r.mantissaBits) << 23);
    const float units = magnitude * down;
    float whole;
    if (uniform < 0.0f) {
        whole = roundHalfEven(units);
    } else {
        const float below = std::floor(units);
        whole = below + (uniform < units - below ? 1.0f : 0.0f);
    }
    float rounded = whole * up;
    if (rounded > r.maxFinite) rounded = r.maxFinite;  // overflow and Inf saturate; NaN stays
    return std::copysign(rounded, x);
}

// floor(log2 |v|) from the exponent field; fp32 subnormals and zero give -127.
int floorLog2(float magnitude) { return static_cast<int>(bitsOf(magnitude) >> 23) - 127; }

struct BlockAmax {
    float amax = 0.0f;  // over the finite elements
    bool finite = true;
};

BlockAmax blockAmax(const float* x, int64_t n) {
    BlockAmax b;
    for (int64_t i = 0; i < n; ++i) {
        const float a = std::fabs(x[i]);
        if (!std::isfinite(a))
            b.finite = false;
        else if (a > b.amax)
            b.amax = a;
    }
    return b;
}

// Each block of each row: scale = blockScale(block amax) (0: the block holds zeros of
// its elements' signs), then out = round(x / scale) * scale.
template <class BlockScale>
void quantizeBlocks(const float* x, float* out, int64_t rows, int64_t rowLength, int64_t blockSize,
                    const ElementRounding& r, BlockScale blockScale, const float* uniforms) {
    for (int64_t row = 0; row < rows; ++row) {
        const float* in = x + row * rowLength;
        float* o = out + row * rowLength;
        const float* u = uniforms ? uniforms + row * rowLength : nullptr;
        for (int64_t start = 0; start < rowLength; start += blockSize) {
            const int64_t n = std::min(blockSize, rowLength - start);
            const BlockAmax b = blockAmax(in + start, n);
            if (!b.finite) {
                std::fill(o + start, o + start + n, kNan);
                continue;
            }
            const float scale = blockScale(b.amax);
            if (!(scale > 0.0f)) {
                for (int64_t i = start; i < start + n; ++i) o[i] = std::copysign(0.0f, in[i]);
                continue;
            }
            for (int64_t i = start; i < start + n; ++i)
                o[i] = roundElement(in[i] / scale, r, u ? u[i] : -1.0f) * scale;
        }
    }
}

}  // namespace

ElementRounding elementRounding(NumberFormat format) {
    if (format != NumberFormat::E4M3 && format != NumberFormat::E5M2 && format != NumberFormat::E2M1)
        throw std::invalid_argument("the CPU loops round e4m3, e5m2 and e2m1 elements");
    const FormatDescription& d = describe(format);
    return {d.mantissaBits, d.minExponent() + 127, static_cast<float>(d.maxFinite)};
}

float finiteAbsMax(const float* x, int64_t n) { return blockAmax(x, n).amax; }

void roundScaled(const float* x, float* out, int64_t n, const ElementRounding& r, float scale,
                 float inverseScale, const float* uniforms) {
    for (int64_t i = 0; i < n; ++i)
        out[i] = roundElement(x[i] * scale, r, uniforms ? uniforms[i] : -1.0f) * inverseScale;
}

void quantizeMxRows(const float* x, float* out, int64_t rows, int64_t rowLength, NumberFormat element,
                    bool rceil, const float* uniforms) {
    const ElementRounding r = elementRounding(element);
    const FormatDescription& d = describe(element);
    const int emax = d.maxExponent();
    quantizeBlocks(x, out, rows, rowLength, kMxBlockSize, r, [&](float amax) {
        int e = floorLog2(amax) - emax;
        if (rceil && static_cast<double>(amax) > d.maxFinite * std::ldexp(1.0, e)) ++e;
        e = std::clamp(e, kE8m0MinExponent, kE8m0MaxExponent);
        return static_cast<float>(std::ldexp(1.0, e));  // 2^-127 is an exact fp32 subnormal
    }, uniforms);
}

void quantizeNvfp4Rows(const float* x, float* out, int64_t rows, int64_t rowLength, float tensorScale,
                       const float* uniforms) {
    const ElementRounding e2m1 = elementRounding(NumberFormat::E2M1);
    const ElementRounding e4m3 = elementRounding(NumberFormat::E4M3);
    const float e2m1Max = e2m1.maxFinite;
    quantizeBlocks(x, out, rows, rowLength, kNvfp4BlockSize, e2m1, [&](float amax) {
        const float blockScale = roundElement(amax / e2m1Max / tensorScale, e4m3);
        return blockScale * tensorScale;
    }, uniforms);
}

QuantizationStats measure(const float* x, const float* q, const bool* overflowed, int64_t n) {
    QuantizationStats s;
    s.elements = n;
    float amax = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        const float v = x[i];
        if (!std::isfinite(v)) {
            ++s.nonFinite;
        } else {
            if (v != 0.0f) {
                ++s.nonZero;
                if (q[i] == 0.0f) ++s.underflowed;
            }
            amax = std::max(amax, std::fabs(v));
            if (std::isfinite(q[i])) {
                const double signal = v;
                const double error = static_cast<double>(q[i]) - signal;
                s.magnitudeError += signal > 0 ? error : (signal < 0 ? -error : 0.0);
                s.absoluteSignal += std::fabs(signal);
                s.squaredError += error * error;
                s.squaredSignal += signal * signal;
            }
        }
        if (overflowed && overflowed[i]) ++s.saturated;
    }
    s.amax = amax;
    return s;
}

}  // namespace ampscope::cpu_quantize
