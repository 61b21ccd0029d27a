#include "engine/PrecisionMapRun.h"

#include <chrono>
#include <optional>

#include "common/InputError.h"
#include "engine/ShadowRun.h"
#include "probes/PrecisionMapCompare.h"

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

PrecisionMapRecord PrecisionMapRun::map(Trainer& main, StepReplay& replay, int64_t step,
                                        const std::function<void(OpCapture&)>& replayWatched) {
    const auto start = std::chrono::steady_clock::now();
    if (!twin_) buildReference(main);
    const bool fp64 = reference_ == precision_map_reference::kFp64;
    const auto dtype = fp64 ? std::optional<c10::ScalarType>(torch::kDouble) : std::nullopt;

    std::vector<CapturedOp> referenceOps;
    {
        twin_->copyStateFrom(main);
        ReferenceFraming framing;
        OpCapture capture(std::nullopt, false);
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
    std::vector<CapturedOp> runOps;
    {
        OpCapture capture(fp64 ? torch::kDouble : torch::kFloat, false);
        replayWatched(capture);
        runOps = capture.takeOps();
    }
    PrecisionMapRecord record = comparePrecisionMaps(runOps, referenceOps, mapFormatsOf(main.policy()));
    record.step = step;
    record.mode = main.config().precision.mode;
    record.reference = reference_;
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return record;
}

}  // namespace ampscope
