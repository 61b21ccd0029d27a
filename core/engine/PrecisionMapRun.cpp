#include "engine/PrecisionMapRun.h"

#include <chrono>
#include <optional>

#include "common/InputError.h"
#include "engine/ShadowRun.h"
#include "probes/PrecisionMapStream.h"

namespace ampscope {

namespace {

// Frames the capture of the reference's step.
struct ReferenceFraming : StepProbe {
    CaptureFraming framing;
    void beforeForward() override { framing.beforeForward(); }
    void afterLoss(const torch::Tensor&) override { framing.afterLoss(); }
    void afterBackward(double) override { framing.afterBackward(); }
};

}  // namespace

PrecisionMapRun::PrecisionMapRun(const Trainer&, std::string reference) : reference_(std::move(reference)) {}

PrecisionMapRun::~PrecisionMapRun() = default;

void PrecisionMapRun::buildReference(const Trainer& main) {
    twin_ = main.twin(fp32ShadowConfig(main.config()));
    if (reference_ != precision_map_reference::kFp64) return;
    for (size_t i = 0; i < twin_->model().layerCount(); ++i) twin_->model().layerTo(i, torch::kDouble);
}

c10::ScalarType PrecisionMapRun::rerunDtype() const {
    return reference_ == precision_map_reference::kFp64 ? torch::kDouble : torch::kFloat;
}

PrecisionMapRecord PrecisionMapRun::map(Trainer& main, StepReplay& replay, int64_t step,
                                        std::vector<CapturedOp> runOps) {
    const auto start = std::chrono::steady_clock::now();
    if (!twin_) buildReference(main);
    const bool fp64 = reference_ == precision_map_reference::kFp64;
    const auto dtype = fp64 ? std::optional<c10::ScalarType>(torch::kDouble) : std::nullopt;

    // The reference's ops are compared as its capture keeps them and dropped: no reference
    // output is held past its comparison.
    PrecisionMapStream compare(std::move(runOps), mapFormatsOf(main.policy()));
    std::vector<CapturedOp> referenceOps;
    {
        twin_->copyStateFrom(main);
        // The step has updated the run's BatchNorm statistics already: the twin starts
        // from the ones the step started from.
        {
            torch::NoGradGuard noGrad;
            auto buffers = twin_->model().buffers();
            const auto& start = replay.stepStartBuffers();
            for (size_t k = 0; k < buffers.size() && k < start.size(); ++k) buffers[k].copy_(start[k]);
        }
        ReferenceFraming framing;
        OpCapture capture(std::nullopt, false, &compare);
        framing.framing.capture = &capture;
        twin_->setStepProbe(&framing);
        struct Detach {
            Trainer& twin;
            ~Detach() {
                twin.setStepProbe(nullptr);
                for (auto& p : twin.parameters()) p.mutable_grad().reset();
            }
        } detach{*twin_};
        try {
            replay.runFromStepStart([&] { twin_->replayStepOf(main, dtype); });
        } catch (const c10::Error& e) {
            if (!fp64) throw;
            std::string what = e.what_without_backtrace();
            if (auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
            throw InputError("probes.precision_map_reference: fp64: the model does not run in float64 (" + what +
                             "); use fp32");
        }
        referenceOps = capture.takeOps();
    }
    PrecisionMapRecord record = compare.finish(referenceOps);
    record.step = step;
    record.mode = main.config().precision.mode;
    record.reference = reference_;
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return record;
}

}  // namespace ampscope
