#pragma once
// INTERNAL (includes torch). The precision map of DESIGN.md: one step run twice from
// the same state, in the run's precision mode and in a reference, every op's output
// compared (probes/PrecisionMapCompare.h, probes/PrecisionMapRecord.h).
//
// The reference is a twin of the run's model (an fp32 config: no autocast, no emulation,
// no scaler, nothing kept), given the run's weights and buffers before each map and, for
// fp64, its parameters and floating buffers held in float64. It runs the step's batch
// with the step's loss factor and loss scale (a power of two: the gradients compare as
// they are), drawing from the random state the step started from (StepReplay), after the
// step's own forward and backward, before its optimizer step; the twin changes nothing
// of the run's. The run's side is the step itself, watched by an OpCapture
// (rerunDtype(): each op run again in the reference's dtype for the error it adds
// itself), which only observes: training goes on as without the map. The reference's
// ops are compared as its capture keeps them (PrecisionMapStream) and dropped.
#include <memory>
#include <string>

#include "engine/StepReplay.h"
#include "engine/Trainer.h"
#include "probes/OpCapture.h"
#include "probes/PrecisionMapRecord.h"

namespace ampscope {

// What a StepProbe's hooks tell a capture: it watches from the start of the forward,
// takes the ops after the loss as the backward's, and stops when the backward is done
// (the unscaling, clipping and optimizer step are no ops of the map).
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

    // The dtype the run's capture reruns its ops in: the reference's.
    c10::ScalarType rerunDtype() const;
    // Between the trainer's stepChecked() and its optimizer step, on a step StepReplay has
    // begun with its buffers: runOps are the step's own ops (an OpCapture framed by the trainer's
    // StepProbe hooks through a CaptureFraming); the reference runs here.
    PrecisionMapRecord map(Trainer& main, StepReplay& replay, int64_t step, std::vector<CapturedOp> runOps);

private:
    void buildReference(const Trainer& main);

    std::string reference_;
    std::unique_ptr<Trainer> twin_;
};

}  // namespace ampscope
