#pragma once
// INTERNAL (includes torch). A loss scaler with torch.amp.GradScaler's
// semantics, for LibTorch (which has none):
// - scale(loss) multiplies by the current scale (a float32 value);
// - unscale(parameters) once per step: multiplies every gradient by
//   inverseScale(scale) (reciprocal in double, narrowed to float), even when a
//   non-finite gradient is found, and records found_inf; a second call before
//   update() is an error, as is unscaling fp16 gradients;
// - step(optimizer) unscales if not done yet and skips optimizer.step() when any
//   gradient was non-finite;
// - update() applies ScaleUpdateRule (dynamic) or keeps the scale (static);
//   update(newScale) sets the scale and leaves the tracker alone.
// Kind::Off passes everything through and always steps (plain training).
#include <string>
#include <vector>

#include <torch/torch.h>

#include "precision/ScaleUpdateRule.h"

namespace ampscope {

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
    // non-finite (before unscaling).
    bool unscale(const std::vector<torch::Tensor>& parameters);
    bool unscaled() const { return stage_ == Stage::Unscaled; }
    const std::vector<bool>& nonFiniteParameters() const { return nonFinite_; }

    // Runs optimizer.step() unless a gradient was non-finite; returns whether it ran.
    bool step(torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& parameters);

    ScaleChange update();
    void update(float newScale);

    bool foundInf() const { return foundInf_; }

    ScalerStateDict stateDict() const;
    void loadStateDict(const ScalerStateDict& state);

private:
    enum class Stage { Ready, Unscaled, Stepped };
    Kind kind_;
    ScaleUpdateRule rule_;
    ScaleState state_;
    Stage stage_ = Stage::Ready;
    bool foundInf_ = false;
    bool infChecked_ = false;
    std::vector<bool> nonFinite_;
};

}  // namespace ampscope
