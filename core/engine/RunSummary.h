#pragma once
// What a finished (or stopped, or failed) run amounts to: summary.json's content.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/NonFiniteEvent.h"
#include "run/EventSchema.h"

namespace ampscope {

inline constexpr int kSummarySchemaVersion = 1;

// Mean fp16 classes of a layer's scaled parameter gradients over the probe steps.
struct LayerUnderflowSummary {
    std::string layer;
    double flushedFraction = 0.0;
    double subnormalFraction = 0.0;
    double overflowFraction = 0.0;
    int64_t probeSteps = 0;
    bool exact = true;  // every probe step counted exactly (not from a histogram)
};

// Mean agreement of a layer's gradients with a reference over the compared
// steps (the fp32 shadow, or lock-step B); steps with a non-finite result are
// not averaged.
struct LayerGradientSummary {
    std::string layer;
    double meanRelError = 0.0;
    double meanCosine = 1.0;
    int64_t steps = 0;
};

struct LockstepSummary {
    std::string mode;        // B's mode
    double finalLoss = 0.0;  // mean of B's finite losses over the last epoch's steps
    std::vector<LayerGradientSummary> layers;  // mean cosine/rel error of A against B
};

struct RunSummary {
    std::string status = std::string(run_status::kFinished);  // run_status::
    std::string error;                // one line when status == error
    std::string device = "cpu";       // cpu | cuda
    std::string deviceName;           // CPU model or GPU name
    int threads = 1;
    std::string torchVersion;
    std::string mode = "fp32";
    bool emulated = false;
    std::string execution;            // how the mode ran, one line
    std::string model;
    std::string dataset;
    int64_t parameters = 0;
    int64_t steps = 0;
    int64_t epochs = 0;  // completed epochs
    double wallSeconds = 0.0;
    double trainSeconds = 0.0;  // time inside training steps
    double samplesPerSecond = 0.0;
    int64_t peakMemoryBytes = 0;  // process peak RSS on CPU, allocator peak on CUDA
    double finalTrainLoss = 0.0;  // mean of the last epoch's (or last 50 steps') finite losses
    double valLoss = 0.0;
    double valAccuracy = 0.0;
    int64_t skippedSteps = 0;
    double finalScale = 1.0;
    int64_t scaleBackoffs = 0;
    int64_t scaleGrowths = 0;
    int64_t nonFiniteLosses = 0;
    std::vector<LayerUnderflowSummary> underflow;
    std::optional<NonFiniteEvent> firstNonFinite;
    double probeOverhead = 0.0;  // probe time / training-step time, measured in the run
    std::vector<LayerGradientSummary> shadow;  // when the fp32 shadow ran
    std::optional<LockstepSummary> lockstep;   // when lock-step A/B ran
};

}  // namespace ampscope
