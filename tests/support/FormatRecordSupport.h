#pragma once
// Hand-built number-format records for the suites of the format docks: a format sweep
// cell, a per-tensor scaled point (fp8) and a block-scaled point (MX).
#include <map>
#include <string>

#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"

namespace ampscope {

inline FormatSweepRecord sweep(int64_t step, const std::string& layer, const std::string& tensor,
                        const std::string& format, int64_t elements, int64_t underflowed,
                        int64_t saturated, double squaredError, double squaredSignal) {
    FormatSweepRecord r;
    r.step = step;
    r.layer = layer;
    r.tensor = tensor;
    r.format = format;
    r.elements = elements;
    r.underflowed = underflowed;
    r.saturated = saturated;
    r.squaredError = squaredError;
    r.squaredSignal = squaredSignal;
    return r;
}

inline FormatQuantRecord quant(int64_t step, double amax, double scaleAmax, double scale, int64_t saturated) {
    FormatQuantRecord r;
    r.step = step;
    r.point.layer = "fc1";
    r.point.operand = "input";
    r.point.direction = "forward";
    r.point.format = "e4m3";
    r.point.recipe = "delayed";
    r.point.tensors = 1;
    r.point.elements = 1000;
    r.point.saturated = saturated;
    r.point.amax = amax;
    r.point.scaleAmax = scaleAmax;
    r.point.scale = scale;
    return r;
}

inline FormatQuantRecord mxBlocks(int64_t step, std::map<int, int64_t> exponents, int64_t crushed) {
    FormatQuantRecord r;
    r.step = step;
    r.point.layer = "fc2";
    r.point.operand = "weight";
    r.point.direction = "forward";
    r.point.format = "e2m1";
    r.point.recipe = "mx";
    r.point.tensors = 1;
    int64_t blocks = 0;
    for (const auto& [e, n] : exponents) blocks += n;
    r.point.blocks = blocks;
    r.point.elements = 32 * blocks;
    r.point.crushedByOutlier = crushed;
    r.point.blockScaleExponents = std::move(exponents);
    r.point.amax = 3.0;
    return r;
}

}  // namespace ampscope
