#pragma once
// Per-step and per-epoch numbers the engine produces: plain values that cross
// from the engine thread to the UI and CLI, and that the run directory records.
#include <cstdint>
#include <string>

#include "precision/ScaleUpdateRule.h"

namespace ampscope {

struct StepMetrics {
    int64_t step = 0;   // 1-based, counts every optimizer step attempt
    int64_t epoch = 0;  // 1-based
    double loss = 0.0;  // unscaled training loss of the batch (NaN/Inf are results)
    double lr = 0.0;
    double gradNorm = 0.0;         // global L2 norm of the (unscaled) gradients before clipping
    double gradNormClipped = 0.0;  // after clipping (== gradNorm when not clipped)
    double stepSeconds = 0.0;
    double samplesPerSecond = 0.0;
    // Loss scaler (scale == 1 and tracker 0 when no scaler runs).
    double scale = 1.0;          // the scale this step's loss was multiplied by
    double scaleAfter = 1.0;     // the scale after this step's update()
    int64_t growthTracker = 0;   // after this step's update
    bool foundInf = false;       // a gradient was non-finite
    bool stepSkipped = false;    // the optimizer step did not run
    ScaleChange scaleChange = ScaleChange::None;  // what this step's update() did to the scale
    std::string firstNonFiniteLayer;  // for a backoff: the layer whose gradient went non-finite first
};

struct EpochMetrics {
    int64_t epoch = 0;
    int64_t step = 0;  // last step of the epoch
    double trainLoss = 0.0;  // mean of the epoch's finite step losses
    double valLoss = 0.0;
    double valAccuracy = 0.0;  // in [0,1]; NaN for regression sets
    double seconds = 0.0;
};

}  // namespace ampscope
