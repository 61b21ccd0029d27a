#pragma once
// INTERNAL (includes torch). Runs a step's forward and backward again from the state the
// step started from, for whoever watches the second run: the non-finite locator on a
// step that turned out non-finite (so clean steps pay for nothing but what they read
// anyway), and the precision map, which watches it and a reference run of the same
// step (engine/PrecisionMapRun.h).
//
// Before such a step it keeps the random state the step starts from (a few bytes; a
// model with dropout draws the same masks again). Once the trainer has checked the
// step, before the optimizer has touched a weight, run() replays the forward
// and backward on the same batch, loss factor and loss scale with the locator (or
// whatever the caller set up) watching, then puts back what the replay changed: the
// gradients (the step's own tensors, not copies), the BatchNorm statistics and the
// random state. In the format modes it keeps delayed scaling's amax histories and the
// stochastic-rounding generator too, so the replay quantizes with the step's scales and
// the histories advance once. The replay's forward in training mode normalises with the batch's
// own statistics, so the running statistics it updates again do not change what it
// computes; they are restored all the same.
#include <functional>
#include <vector>

#include <torch/torch.h>

#include "precision/ComputePolicy.h"

namespace ampscope {

class Trainer;

class StepReplay {
public:
    explicit StepReplay(Trainer& trainer);

    // Before the step: keeps the random state (and format state) it starts from; with
    // buffers, also the model's buffers (BatchNorm statistics), for a reference model
    // that must start where the step started (the step itself updates them).
    void beginStep(bool buffers = false);
    const std::vector<torch::Tensor>& stepStartBuffers() const { return stepStartBuffers_; }
    // Between Trainer's stepChecked() and its optimizer step.
    void run();
    // Between the same two points: `work` (a reference model's forward and backward on the
    // step's batch) draws from the random state the step started from; the state the
    // step left is put back afterwards.
    void runFromStepStart(const std::function<void()>& work);

private:
    std::vector<torch::Tensor> randomStates() const;
    void restoreRandomStates(const std::vector<torch::Tensor>& states) const;

    Trainer& trainer_;
    std::vector<torch::Tensor> stepStartRandomStates_;
    std::vector<torch::Tensor> stepStartBuffers_;  // beginStep(true) only
    ComputePolicy::FormatState stepStartFormatState_;  // format modes only
};

}  // namespace ampscope
