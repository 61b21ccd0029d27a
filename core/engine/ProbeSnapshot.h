#pragma once
// What one probe step measured, per layer, as plain values: what the engine turns
// into events.jsonl records (probeRecords) and the run summary's underflow means.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/ExponentHistogram.h"
#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/Fp16Classes.h"
#include "probes/NonFiniteEvent.h"
#include "probes/StepAudit.h"
#include "probes/UpdateRatio.h"

namespace ampscope {

struct LayerProbe {
    std::string layer;
    bool hasParameters = false;
    ExponentHistogram paramGrad;        // unscaled (true) parameter gradients
    ExponentHistogram paramGradScaled;  // as backward produced them: what fp16 holds
    ExponentHistogram activationGrad;   // gradient arriving at the layer's output
    // The layer's scaled parameter gradients against fp16: exact where the fp32
    // value is in hand (emulation counts at the rounding; fp32/bf16/tf32 runs
    // classify their fp32 gradients), estimated from the histogram otherwise.
    Fp16ClassCounts gradClasses;
    // "What if" the unscaled gradients were scaled by scale/2, scale, 2*scale.
    std::vector<double> whatIfMultipliers;
    std::vector<Fp16ClassCounts> whatIf;
    // Emulated fp16 only (exact, counted at the rounding points): the layer's
    // matmul/conv output in forward, and the gradient arriving at it in backward.
    std::optional<Fp16ClassCounts> activationClasses;
    std::optional<Fp16ClassCounts> activationGradClasses;
    std::optional<LayerUpdateRatio> update;
};

struct ProbeSnapshot {
    int64_t step = 0;
    double scale = 1.0;
    std::vector<LayerProbe> layers;  // in forward order
    double probeSeconds = 0.0;       // time the probes took on this step
    std::vector<LayerOps> opDtypes;  // which op ran in which dtype, forward order, "loss" last
    MemoryUsage memory;              // process memory and activation bytes of the step
    // The format modes: what each quantization point did (first met first).
    std::vector<FormatQuantMeasurement> formatPoints;
    // Sweep steps: every format on each layer's weight gradient and matmul/conv input,
    // layer by layer in forward order, gradient first, formats in sweepFormats' order.
    std::vector<FormatSweepRecord> formatSweep;
};

}  // namespace ampscope
