#pragma once
// Plain (no torch). What the non-finite locator reports: the first NaN/Inf of
// a run (where it appeared, in which direction, how many), and the frames of
// per-layer statistics from the steps before it, as the NaN inspector shows.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/TensorStats.h"

namespace ampscope {

namespace nonfinite_phase {
inline constexpr std::string_view kForward = "forward";
inline constexpr std::string_view kBackward = "backward";
}  // namespace nonfinite_phase

namespace nonfinite_tensor {
inline constexpr std::string_view kActivation = "activation";  // a layer's forward output
inline constexpr std::string_view kGradient = "gradient";  // the gradient arriving at that output
inline constexpr std::string_view kLoss = "loss";
// The layer's parameter gradients after backward (a recorded run: the recorder's fused
// check of every parameter gradient, when nothing before them was non-finite).
inline constexpr std::string_view kParamGrad = "param_grad";
}  // namespace nonfinite_tensor

// How a non-finite value reached the run that records it, when it did not appear there:
// a torch.distributed rank whose parameter gradients went non-finite while none of its
// own activations or activation gradients did received them from another rank through
// the gradient all-reduce.
namespace nonfinite_via {
inline constexpr std::string_view kGradientAllReduce = "gradient_allreduce";
}  // namespace nonfinite_via

// How the event was found: by the checks that ran in the step itself (every step,
// or a probe step), or by running the step again with every layer checked.
namespace nonfinite_located_by {
inline constexpr std::string_view kCheck = "check";
inline constexpr std::string_view kReplay = "replay";
}  // namespace nonfinite_located_by

// The layer name a loss event carries.
inline constexpr std::string_view kLossLayerName = "loss";

struct NonFiniteEvent {
    int64_t step = 0;
    std::string layer;        // layer name, or "loss"
    int64_t layerIndex = -1;  // position in the model's layer list; -1 for the loss
    std::string phase;        // nonfinite_phase
    std::string tensor;       // nonfinite_tensor
    int64_t nan = 0;
    int64_t posInf = 0;
    int64_t negInf = 0;
    int64_t numel = 0;  // elements of the tensor checked
    // nonfinite_located_by; runs written before the field was recorded checked every step.
    std::string locatedBy = std::string(nonfinite_located_by::kCheck);
    int64_t replayMissedStep = 0;  // a step whose replay found nothing (0: none)
    // Found by a replay: the first operator whose output was not finite
    // (probes/FirstNonFiniteOp.h); empty when not known.
    std::string op;          // "aten::div"
    std::string opPhase;     // nonfinite_phase
    std::string opModule;    // the module it ran in (a TorchScript model's forward), or ""
    std::string opNode;      // the autograd node it ran in (backward), or ""
    std::string via;         // nonfinite_via; empty: the value appeared in this run

    bool operator==(const NonFiniteEvent& other) const = default;
};

struct LayerFrame {
    std::string layer;
    int64_t layerIndex = 0;
    std::optional<TensorStats> activation;  // forward output
    std::optional<TensorStats> gradient;    // gradient arriving at the output (absent: none flowed)
};

// One step's statistics, layers in forward order.
struct StatsFrame {
    int64_t step = 0;
    std::vector<LayerFrame> layers;
    std::optional<TensorStats> loss;
};

}  // namespace ampscope
