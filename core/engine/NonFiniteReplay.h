#pragma once
// INTERNAL (includes torch). Runs a step that turned out non-finite a second time,
// so that the first NaN/Inf can be located with every layer checked while clean
// steps pay for nothing but what they read anyway.
//
// Before each step it keeps the random state the step starts from (a few bytes; a
// model with dropout draws the same masks again). When the trainer reports the step
// non-finite, before the optimizer has touched a weight, run() replays the forward
// and backward on the same batch, loss factor and loss scale with the locator (or
// whatever the caller set up) watching, then puts back what the replay changed: the
// gradients (the step's own tensors, not copies), the BatchNorm statistics and the
// random state. In the format modes it keeps delayed scaling's amax histories and the
// stochastic-rounding generator too, so the replay quantizes with the step's scales and
// the histories advance once. The replay's forward in training mode normalises with the batch's
// own statistics, so the running statistics it updates again do not change what it
// computes; they are restored all the same.
#include <vector>

#include <torch/torch.h>

#include "precision/ComputePolicy.h"

namespace ampscope {

class Trainer;

class NonFiniteReplay {
public:
    explicit NonFiniteReplay(Trainer& trainer);

    // Before the step: keeps the random state (and format state) it starts from.
    void beginStep();
    // Between Trainer's stepChecked() and its optimizer step.
    void run();

private:
    std::vector<torch::Tensor> randomStates() const;
    void restoreRandomStates(const std::vector<torch::Tensor>& states) const;

    Trainer& trainer_;
    std::vector<torch::Tensor> stepStartRandomStates_;
    ComputePolicy::FormatState stepStartFormatState_;  // format modes only
};

}  // namespace ampscope
