#pragma once
// Plain (no torch). The training steps' fake quantization on the CPU as single
// loops over fp32 data: one pass where the vectorised torch path of
// TensorQuantizers.cpp makes a dozen (each op a pass over memory), which is most of
// what the format modes cost. Same operations on the same floats in the same order,
// so the results are equal bit for bit (tests/core/precision/test_formats.cpp compares the two);
// saturating, no statistics: the torch path keeps those (probe steps) and the
// non-saturating policy. `uniforms` (null: round to nearest even) holds one draw per
// element, in the elements' order, for stochastic rounding: the caller draws them
// exactly as the torch path does, so both round alike.
#include <cstdint>

#include "precision/formats/FormatTable.h"
#include "precision/formats/QuantizationStats.h"

namespace ampscope::cpu_quantize {

// An element format's rounding: |x| = m * 2^(e - mantissaBits), m rounded.
struct ElementRounding {
    int mantissaBits = 0;
    int minField = 0;      // biased fp32 exponent field of the format's smallest normal
    float maxFinite = 0.0f;
};
ElementRounding elementRounding(NumberFormat format);  // e4m3, e5m2, e2m1

// The largest |x| over the finite elements (0 when none).
float finiteAbsMax(const float* x, int64_t n);

// out[i] = round(x[i] * scale) * inverseScale: per-tensor fp8 (scale 1 for a plain cast).
void roundScaled(const float* x, float* out, int64_t n, const ElementRounding& rounding, float scale,
                 float inverseScale, const float* uniforms = nullptr);

// MX: rows of `rowLength` values, blocks of kMxBlockSize along the row (the last one
// shorter when the row is not a multiple), an e8m0 scale per block by the floor or
// rceil rule; a block holding NaN or Inf becomes NaN.
void quantizeMxRows(const float* x, float* out, int64_t rows, int64_t rowLength, NumberFormat element,
                    bool rceil, const float* uniforms = nullptr);

// NVFP4: blocks of kNvfp4BlockSize along the rows, e4m3 block scales under the fp32
// tensor scale s_tensor (nvfp4TensorScale of the tensor's finite amax).
void quantizeNvfp4Rows(const float* x, float* out, int64_t rows, int64_t rowLength, float tensorScale,
                       const float* uniforms = nullptr);

// What quantizing x to q did, over n elements, as TensorQuantizers' measure() defines
// it (counts, and the error sums in double over the elements finite before and
// after); `overflowed` (may be null) marks the saturated ones. Only the element
// statistics: no scale and no block fields. Parts add with addElementsOf().
QuantizationStats measure(const float* x, const float* q, const bool* overflowed, int64_t n);

}  // namespace ampscope::cpu_quantize
