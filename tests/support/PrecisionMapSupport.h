#pragma once
// Helpers shared by the precision map's suites: one trainer step mapped as ProbeSession
// maps it, and two captures of test code compared as the map compares them.
#include <QtCore/QString>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "engine/PrecisionMapRun.h"
#include "engine/StepReplay.h"
#include "engine/Trainer.h"
#include "probes/OpCapture.h"
#include "probes/PrecisionMapCompare.h"

namespace ampscope::test {

// One step of a trainer with its precision map, as ProbeSession takes it on a map step.
class MapStep : public StepProbe {
public:
    explicit MapStep(Trainer& trainer, std::string reference = "fp32")
        : trainer_(trainer), replay_(trainer), map_(trainer, std::move(reference)) {
        trainer_.setStepProbe(this);
    }
    ~MapStep() override { trainer_.setStepProbe(nullptr); }

    PrecisionMapRecord step(const torch::Tensor& x, const torch::Tensor& y) {
        replay_.beginStep(true);
        capture_ = std::make_unique<OpCapture>(map_.rerunDtype(), false);
        framing_.capture = capture_.get();
        trainer_.step(x, y);
        return *record_;
    }
    void beforeForward() override { framing_.beforeForward(); }
    void afterLoss(const torch::Tensor&) override { framing_.afterLoss(); }
    void afterBackward(double) override { framing_.afterBackward(); }
    void stepChecked(bool) override {
        auto ops = capture_->takeOps();
        framing_.capture = nullptr;
        capture_.reset();
        record_ = map_.map(trainer_, replay_, 1, std::move(ops));
    }

private:
    Trainer& trainer_;
    StepReplay replay_;
    PrecisionMapRun map_;
    std::unique_ptr<OpCapture> capture_;
    CaptureFraming framing_;
    std::optional<PrecisionMapRecord> record_;
};

// The run's and a reference's capture of the same code, compared as the map compares.
template <class Run, class Reference>
PrecisionMapRecord mapOf(Run&& run, Reference&& reference, const MapFormats& formats) {
    std::vector<CapturedOp> runOps, referenceOps;
    {
        OpCapture capture(torch::kFloat);
        run();
        runOps = capture.takeOps();
    }
    {
        OpCapture capture;
        reference();
        referenceOps = capture.takeOps();
    }
    return comparePrecisionMaps(runOps, referenceOps, formats);
}

inline const PrecisionMapOp* findOp(const PrecisionMapRecord& map, const std::string& op,
                                    const std::string& phase = "forward") {
    for (const auto& row : map.ops)
        if (row.op == op && row.phase == phase) return &row;
    return nullptr;
}

inline QString describe(const PrecisionMapOp& row) {
    return QString("%1 in %2 (%3, output %4): rel %5, added %6, input %7")
        .arg(QString::fromStdString(row.op), QString::fromStdString(row.module), QString::fromStdString(row.phase))
        .arg(row.output)
        .arg(row.relError, 0, 'g', 17)
        .arg(row.addedError, 0, 'g', 17)
        .arg(row.inputError, 0, 'g', 17);
}

inline MapFormat bf16Format() { return MapFormat{"bf16", 8, -126}; }
inline MapFormat fp16Format() { return MapFormat{"fp16", 11, -14}; }

}  // namespace ampscope::test
