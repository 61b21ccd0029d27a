#pragma once
// INTERNAL (includes torch). Runs the probes of DESIGN.md inside the steps of
// one Trainer:
// - the non-finite locator (each layer's forward output, the loss, and each
//   gradient arriving at a layer output), as probes.locate_nonfinite says:
//   "replay" checks those only on probe steps (for the frames before an event)
//   and on a replay of the first step the trainer reports non-finite
//   (StepReplay); "always" checks them on every step. A replay that does not
//   reproduce the event (a non-deterministic kernel) turns the checks on for
//   every step until the event is found, and the event says so;
// - on probe steps (step 1 and every probes.every steps): per-layer histograms
//   of the scaled and unscaled parameter gradients and of the activation
//   gradients; fp16 class counts of the scaled parameter gradients (exact at the
//   rounding points under fp16 emulation, exact "what fp16 would do" for fp32
//   gradients elsewhere, estimated from the histogram for real fp16); "what if"
//   counts at scale/2, scale, 2*scale; update ratios and, in pure modes, the
//   fraction of updates lost to rounding; the dtype each op of each layer ran
//   in (OpDtypeAudit); the bytes of the layer outputs by dtype and the process
//   memory. All of a probe step's tensor results come to the host in one copy
//   (ProbeReadout).
// - on sweep steps (probe steps that are a multiple of probes.format_sweep_every,
//   when > 0; not step 1, whose sweep would cost a short run too much; and the run's
//   last probe step when none has swept yet, so a run shorter than the cadence sweeps
//   once too): the format sweep (FormatSweep.h) of each
//   layer's first matmul/conv input of the step (as the layer holds it, before any
//   rounding or quantization of the mode) and of its weight gradient (the layer's
//   first parameter of two or more dimensions, unscaled, before clipping);
// - on shadow steps (step 1 and every probes.shadow_every steps, when > 0):
//   the fp32 shadow (ShadowRun) at the unscale point; takeShadow() hands the
//   result to the engine after the step.
// - on map steps (probes.precision_map_steps, and a step the window asks for with
//   requestMap()): the precision map (PrecisionMapRun): the step's own forward and
//   backward watched op by op (the probes' own work left out), the reference run between
//   the step's check and its optimizer step; takePrecisionMap() hands the record to the
//   engine after the step.
// The engine calls beginStep() before and endStep() after Trainer::step().
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include <torch/torch.h>

#include "config/RunConfig.h"
#include "engine/StepReplay.h"
#include "engine/PrecisionMapRun.h"
#include "engine/ProbeSnapshot.h"
#include "engine/ShadowRun.h"
#include "engine/Trainer.h"
#include "probes/NonFiniteLocator.h"
#include "probes/ComparisonRecords.h"
#include "probes/FormatSweepRecord.h"
#include "probes/ObserverChain.h"
#include "probes/OpDtypeAudit.h"
#include "probes/ProbeReadout.h"
#include "probes/UpdateRatioProbe.h"

namespace ampscope {

class ProbeSession : public StepProbe, public RoundingObserver, public LayerObserver {
public:
    // faults (may be null) run before the locator so it sees what they inject.
    ProbeSession(Trainer& trainer, const ProbeConfig& config, LayerObserver* faults);
    ~ProbeSession() override;

    // The run's length in steps: its last probe step sweeps when no earlier one did.
    void setTotalSteps(int64_t total) { totalSteps_ = total; }
    void beginStep(int64_t step);
    // Returns the probe snapshot on probe steps.
    std::shared_ptr<ProbeSnapshot> endStep();

    bool probeStep() const { return probeStep_; }
    bool shadowStep() const { return shadowStep_; }
    bool sweepStep() const { return sweepStep_; }
    // The shadow comparison of the step just ended, once (null when none ran).
    std::optional<ShadowRecord> takeShadow();
    // Maps the next step too (besides probes.precision_map_steps).
    void requestMap() { mapRequested_ = true; }
    bool mapStep() const { return mapStep_; }
    // The precision map of the step just ended, once (null when none ran).
    std::optional<PrecisionMapRecord> takePrecisionMap();
    // The run's first non-finite value, when this step found it.
    const std::optional<NonFiniteEvent>& newFirstNonFinite() const { return newFirst_; }
    const NonFiniteLocator& locator() const { return locator_; }
    double probeSeconds() const { return totalSeconds_; }

    // StepProbe
    void beforeForward() override;
    void afterLoss(const torch::Tensor& loss) override;
    void afterBackward(double scale) override;
    void afterUnscale() override;
    void stepChecked(bool nonFinite) override;
    void beforeOptimizerStep() override;
    void afterOptimizerUpdate() override;
    void afterOptimizerStep(bool stepRan) override;
    // RoundingObserver (emulated fp16 and the format modes, on probe steps)
    void beforeRounding(const RoundingTag& tag, bool backward, const torch::Tensor& values,
                        Rounding rounding) override;
    void afterQuantizing(const RoundingTag& tag, bool backward, const FormatQuantizer& quantizer,
                         const QuantizationStats& stats) override;
    // The format sweep's activations (sweep steps).
    void matmulInput(const RoundingTag& tag, const torch::Tensor& values, BlockLayout layout) override;
    // LayerObserver: hooks the gradient arriving at each layer output on probe steps.
    void afterLayer(size_t index, const std::string& name, torch::Tensor& output) override;

private:
    using Clock = std::chrono::steady_clock;
    struct Timer;
    struct LayerSlots {
        ProbeReadout::Handle paramGradScaled = 0, paramGrad = 0, activationGrad = 0;
        ProbeReadout::Handle gradClasses = 0, whatIf = 0;
        bool hasParamGrads = false, hasActivationGrad = false, hasGradClasses = false;
        // Emulation counts accumulate in place (a layer can round several times).
        torch::Tensor activationClasses, activationGradClasses, weightGradClasses;
    };
    std::vector<torch::Tensor> layerGrads(size_t layer) const;
    // First in the observer chain: a layer's forward ended, so the ops that
    // follow (the locator's statistics, faults) are not the layer's.
    struct AuditBoundary : LayerObserver {
        OpDtypeAudit* audit = nullptr;
        void afterLayer(size_t, const std::string& name, torch::Tensor&) override {
            if (!audit->active()) return;
            audit->layerEnded(name);
            audit->pause();
        }
    };
    std::shared_ptr<ProbeSnapshot> buildSnapshot();  // after the step, one host read
    void countActivationBytes(size_t index, const torch::Tensor& output);

    Trainer& trainer_;
    ProbeConfig config_;
    NonFiniteLocator locator_;
    ObserverChain chain_;
    UpdateRatioProbe updates_;
    ProbeReadout readout_;
    std::vector<LayerSlots> slots_;
    std::vector<std::vector<size_t>> parametersOfLayer_;
    std::map<std::string, size_t> layerIndex_;
    bool emulatedRounding_ = false;  // fp16 emulation: count at the rounding points
    bool realHalfGradients_ = false; // fp16 values we cannot see before rounding
    bool formatRounding_ = false;    // a format mode: measure each quantization point
    // Observing the rounding points on this step (fp16 emulation or a format mode).
    bool observesRounding() const { return probeStep_ && (emulatedRounding_ || formatRounding_); }
    // Listening at the rounding points at all: those counts, or the sweep's activations.
    bool listensAtRoundingPoints() const { return observesRounding() || sweepStep_; }
    // The sweep's records of this step per layer: its weight gradient's and its first
    // matmul/conv input's (empty until measured).
    std::vector<std::vector<FormatSweepRecord>> gradientSweep_, activationSweep_;
    std::vector<FormatSweepRecord> sweepRecords(size_t layer, std::string_view tensor,
                                                const torch::Tensor& values, BlockLayout layout) const;
    // The format modes' points of this probe step, in the order they were first met,
    // and where each is in that list: (layer, operand, backward).
    std::vector<FormatQuantMeasurement> formatPoints_;
    std::map<std::tuple<std::string, int, bool>, size_t> formatPointIndex_;
    int64_t step_ = 0;
    bool probeStep_ = false;
    bool shadowStep_ = false;
    bool sweepStep_ = false;
    bool swept_ = false;       // some step of the run has swept
    int64_t totalSteps_ = 0;   // 0: not known
    std::unique_ptr<ShadowRun> shadow_;
    std::optional<ShadowRecord> shadowResult_;
    OpDtypeAudit audit_;
    AuditBoundary auditBoundary_;
    bool emulatedHalfValues_ = false;  // emulation rounds layer values to fp16
    std::map<std::string, int64_t> activationBytes_, activationBytesReal_;
    // An fp32 output under fp16 emulation whose every value may be an fp16 value: the
    // check is read with the step's probes, then the bytes are counted (resolveHalfChecks).
    struct HalfCheck {
        ProbeReadout::Handle allHalf;
        std::string stored;
        int64_t bytes;
        int64_t elements;
    };
    std::vector<HalfCheck> pendingHalfChecks_;
    void resolveHalfChecks();
    double scale_ = 1.0;
    double stepProbeSeconds_ = 0.0;
    double totalSeconds_ = 0.0;
    std::optional<NonFiniteEvent> newFirst_;
    // The locator: its mode, whether it checks the current step, and the replay.
    bool locateAlways_ = false, locateByReplay_ = false;
    bool locateThisStep_ = false;
    bool replaying_ = false;
    int64_t replayMissedStep_ = 0;  // a replay that found nothing: checks every step since
    StepReplay replay_;
    // The precision map: on this step, asked for the next, its reference (built at the
    // first map), the capture watching the replay, the result.
    bool mapStep_ = false, mapRequested_ = false;
    std::unique_ptr<PrecisionMapRun> map_;
    std::unique_ptr<OpCapture> mapCapture_;  // watching the map step itself
    CaptureFraming mapFraming_;
    std::optional<PrecisionMapRecord> mapResult_;
    LayerObserver* faults_ = nullptr;  // what the map's replay injects again, as the step did
    void runPrecisionMap();
    void locateByReplay();  // the replay of the run's first non-finite step
    void takeFirstEvent(const std::optional<NonFiniteEvent>& hit, std::string_view locatedBy);
    std::vector<std::optional<LayerUpdateRatio>> updateResults_;
};

}  // namespace ampscope
