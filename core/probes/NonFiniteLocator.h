#pragma once
// INTERNAL (includes torch). Finds where the first NaN/Inf of a run appeared.
//
// As a LayerObserver it checks every layer's forward output, and registers a
// hook on that output to check the gradient arriving at it during backward;
// checkLoss() checks the loss. Each check is one reduction over the tensor into
// a tiny slot tensor on its device (TensorStatsProbe.h). On a GPU nothing is
// read to the host until endStep(), which reads all of the step's checks with
// ONE copy; on the CPU the reduction's result is looked at where it is made (a
// memory load, no synchronisation) so that only a tensor that is not all
// finite pays for exact counting. No tensor is kept alive past its check, so
// peak memory is unchanged.
//
// "First" is execution order: forward layers in order, then the loss, then
// backward from the loss toward the input (the gradient arriving at the last
// layer comes first). The first hit of the run is kept (firstEvent()); every
// step's earliest hit is available too (lastStepHit()), e.g. to label a
// loss-scale backoff with the layer that overflowed.
//
// Frames: on steps begun with statsThisStep = true, the checks compute full
// TensorStats (finite min/max/mean, counts) and endStep() pushes a StatsFrame
// into a ring buffer of the last `frameCapacity` such steps. The non-finite
// check itself runs on every step; the engine chooses how often to pay for
// stats. framesAtFirstEvent() keeps the ring as it was when the first event
// was found, so the NaN inspector can show the steps before it later.
//
// Use from the training thread: beginStep, forward (afterLayer), checkLoss,
// backward (hooks; may run on autograd's device threads), endStep.
#include <torch/torch.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/LayeredModel.h"
#include "probes/NonFiniteEvent.h"

namespace ampscope {

class NonFiniteLocator : public LayerObserver {
public:
    explicit NonFiniteLocator(size_t frameCapacity = 16);
    ~NonFiniteLocator() override;

    void beginStep(int64_t step, bool statsThisStep = false);
    void afterLayer(size_t index, const std::string& name, torch::Tensor& output) override;
    void checkLoss(const torch::Tensor& loss);
    // Reads the step's checks (one host copy). Returns the run's first event
    // if this step found it, otherwise nothing.
    std::optional<NonFiniteEvent> endStep();

    const std::optional<NonFiniteEvent>& firstEvent() const { return firstEvent_; }
    // The earliest non-finite check of the last ended step (any step, not only the first).
    const std::optional<NonFiniteEvent>& lastStepHit() const { return lastStepHit_; }
    // Oldest first; at most frameCapacity().
    std::vector<StatsFrame> frames() const;
    const std::vector<StatsFrame>& framesAtFirstEvent() const { return framesAtFirstEvent_; }

    size_t frameCapacity() const { return frameCapacity_; }
    void setFrameCapacity(size_t capacity);
    // Forgets the first event and the frames (a new run).
    void reset();

private:
    struct Check;
    struct Pending;  // shared with the gradient hooks, which may outlive this object

    StatsFrame buildFrame(const std::vector<Check>& checks,
                          const std::vector<TensorStats>& stats) const;

    size_t frameCapacity_;
    int64_t step_ = 0;
    bool statsThisStep_ = false;
    bool inStep_ = false;
    std::shared_ptr<Pending> pending_;

    std::optional<NonFiniteEvent> firstEvent_;
    std::optional<NonFiniteEvent> lastStepHit_;
    std::deque<StatsFrame> frames_;
    std::vector<StatsFrame> framesAtFirstEvent_;
};

}  // namespace ampscope
