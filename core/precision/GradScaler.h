#pragma once
// INTERNAL (includes torch). A loss scaler with torch.amp.GradScaler's
// semantics, for LibTorch (which has none):
// - scale(loss) multiplies by the current scale (a float32 value);
// - unscale(parameters) once per step: multiplies every gradient by
//   inverseScale(scale) (reciprocal in double, narrowed to float), even when a
//   non-finite gradient is found, and records found_inf; a second call before
//   update() is an error, as is unscaling fp16 gradients. On a GPU the check and
//   the multiply are PyTorch's own multi-tensor kernel
//   (_amp_foreach_non_finite_check_and_unscale_), one launch for all gradients;
//   found_inf stays on the device until it is read, so a trainer can read it in
//   one copy with the loss and the gradient norm (unscaleWithoutReading);
// - step(optimizer) unscales if not done yet and skips optimizer.step() when any
//   gradient was non-finite;
// - update() applies ScaleUpdateRule (dynamic) or keeps the scale (static);
//   update(newScale) sets the scale and leaves the tracker alone.
// Kind::Off passes everything through and always steps (plain training).
#include <functional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "precision/ScaleUpdateRule.h"

namespace ampscope {

// loss times a loss scale, as torch.amp's scale(loss) forms it (the scale a float32
// tensor); a reference run of a scaled step scales its loss the same way.
torch::Tensor scaleLoss(const torch::Tensor& loss, float scale);

// Misuse of the scaler, with PyTorch's own messages.
class ScalerUsageError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

struct ScalerStateDict {
    float scale = 65536.0f;
    double growthFactor = 2.0;
    double backoffFactor = 0.5;
    int64_t growthInterval = 2000;
    int32_t growthTracker = 0;
};

class GradScaler {
public:
    enum class Kind { Off, Static, Dynamic };

    GradScaler(Kind kind, double initScale, const ScaleUpdateRule& rule);

    Kind kind() const { return kind_; }
    bool enabled() const { return kind_ != Kind::Off; }
    float scale() const { return state_.scale; }
    int32_t growthTracker() const { return state_.growthTracker; }

    torch::Tensor scale(const torch::Tensor& loss) const;

    // Unscales the gradients of `parameters` in place; returns found_inf. Index
    // i of nonFiniteParameters() is true when parameter i's gradient was
    // non-finite: on the CPU checked before unscaling, as PyTorch's kernel checks;
    // on a GPU (asked only when found_inf is set) checked after it, so a finite
    // gradient that unscaling by a scale below 1 overflowed counts as well.
    bool unscale(const std::vector<torch::Tensor>& parameters);
    // unscale() without reading found_inf to the host: foundInfFlag() holds it (a
    // float32 scalar on the gradients' device, 1 when a gradient was non-finite)
    // until foundInf() reads it or the caller hands its value over with
    // setFoundInfRead() after reading it together with other values.
    void unscaleWithoutReading(const std::vector<torch::Tensor>& parameters);
    const torch::Tensor& foundInfFlag() const { return foundInfFlag_; }
    void setFoundInfRead(bool found);
    bool unscaled() const { return stage_ == Stage::Unscaled; }
    const std::vector<bool>& nonFiniteParameters() const;

    // Runs optimizer.step() (or optimizerStep()) unless a gradient was non-finite;
    // returns whether it ran.
    bool step(torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& parameters);
    bool step(const std::function<void()>& optimizerStep, const std::vector<torch::Tensor>& parameters);

    ScaleChange update();
    void update(float newScale);

    // found_inf of the last unscale, read from the device on first use.
    bool foundInf() const;

    ScalerStateDict stateDict() const;
    void loadStateDict(const ScalerStateDict& state);

private:
    enum class Stage { Ready, Unscaled, Stepped };
    Kind kind_;
    ScaleUpdateRule rule_;
    ScaleState state_;
    Stage stage_ = Stage::Ready;
    bool infChecked_ = false;
    // The last unscale's results, on the device until first asked for.
    torch::Tensor foundInfFlag_;
    torch::Tensor parameterFlags_;  // CPU: one bool per gradient, checked before unscaling
    std::vector<torch::Tensor> unscaledGradients_;  // GPU: checked again only when found_inf
    std::vector<size_t> gradientIndices_;           // parameter index of each gradient
    size_t parameterCount_ = 0;
    mutable bool foundInf_ = false;
    mutable bool foundInfRead_ = false;
    mutable std::vector<bool> nonFinite_;
    mutable bool nonFiniteRead_ = false;
};

}  // namespace ampscope
