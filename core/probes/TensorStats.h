#pragma once
// Plain (no torch). Summary of one tensor at one moment, as the NaN inspector
// shows it for the frames before a non-finite event: the range and mean of
// the FINITE elements (so a frame with one NaN still shows where the rest
// sat), the largest finite magnitude, and how many elements were NaN, +Inf,
// -Inf. With no finite element, min/max/mean/absMax are NaN.
#include <cstdint>

namespace ampscope {

struct TensorStats {
    double min = 0.0;     // smallest finite element
    double max = 0.0;     // largest finite element
    double mean = 0.0;    // mean of the finite elements
    double absMax = 0.0;  // largest finite |x|
    int64_t nan = 0;
    int64_t posInf = 0;
    int64_t negInf = 0;
    int64_t numel = 0;

    bool finite() const { return nan == 0 && posInf == 0 && negInf == 0; }
    int64_t finiteCount() const { return numel - nan - posInf - negInf; }
};

// Field-by-field equality in which NaN equals NaN (an all-NaN frame equals its
// JSON round trip).
bool sameStats(const TensorStats& a, const TensorStats& b);

}  // namespace ampscope
