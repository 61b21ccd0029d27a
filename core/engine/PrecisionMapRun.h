#pragma once
// INTERNAL (includes torch). The precision map of DESIGN.md: one step run twice from
// the same state, in the run's precision mode and in a reference, every op's output
// compared (probes/PrecisionMapCompare.h, probes/PrecisionMapRecord.h).
//
// The reference is a twin of the run's model (an fp32 config: no autocast, no emulation,
// no scaler, nothing kept), given the run's weights and buffers before each map and, for
// fp64, its parameters and floating buffers held in float64. It runs the step's batch
// with the step's loss factor and loss scale (a power of two: the gradients compare as
// they are), drawing from the random state the step started from (StepReplay). The
// run's side is the StepReplay of the step itself, so the values are the step's own,
// and everything the replay changed is put back: training goes on as without the map.
//
// Both sides are watched by an OpCapture; the run's reruns each op in the reference's
// dtype for the error the op adds itself.
#include <functional>
#include <memory>
#include <string>

#include "engine/StepReplay.h"
#include "engine/Trainer.h"
#include "probes/OpCapture.h"
#include "probes/PrecisionMapRecord.h"

namespace ampscope {

// What a StepProbe's hooks tell a capture: it watches from the start of the forward,
// takes the ops after the loss as the backward's, and stops when the backward is done
// (the work around a replay, its saving and putting back, is no op of the step).
struct CaptureFraming {
    OpCapture* capture = nullptr;
    void beforeForward() const {
        if (capture) capture->watch(true);
    }
    void afterLoss() const {
        if (capture) capture->startBackward();
    }
    void afterBackward() const {
        if (capture) capture->watch(false);
    }
};

class PrecisionMapRun {
public:
    // reference: precision_map_reference. A model that cannot run in fp64 is an InputError
    // naming probes.precision_map_reference, at the first map.
    PrecisionMapRun(const Trainer& main, std::string reference);
    ~PrecisionMapRun();

    // Between the trainer's stepChecked() and its optimizer step, on a step StepReplay has
    // begun. replayWatched(capture) runs the replay of the run's step (StepReplay::run)
    // with the trainer's StepProbe passing its hooks on to a CaptureFraming of it.
    PrecisionMapRecord map(Trainer& main, StepReplay& replay, int64_t step,
                           const std::function<void(OpCapture& capture)>& replayWatched);

private:
    void buildReference(const Trainer& main);

    std::string reference_;
    std::unique_ptr<Trainer> twin_;
};

}  // namespace ampscope
