#include "engine/FaultInjector.h"

#include <limits>
#include <new>

#include "precision/InsertedOps.h"
#include "precision/NamedOpScope.h"

namespace ampscope {
namespace {

// The replacement is named as a fault in the op stream, so the first op that made the
// NaN is "an injected fault", not the fill that wrote it.
torch::Tensor withFirstElement(const torch::Tensor& t, double value) {
    NamedOpScope fault(inserted_op::kInjectedFault, t);
    auto copy = t.clone();
    copy.view({-1})[0].fill_(value);
    return fault.output(copy);
}

double faultValue(const std::string& kind) {
    return kind.rfind("nan", 0) == 0 ? std::numeric_limits<double>::quiet_NaN()
                                     : std::numeric_limits<double>::infinity();
}

}  // namespace

FaultInjector::FaultInjector(std::vector<FaultConfig> faults, Report report)
    : faults_(std::move(faults)), report_(std::move(report)) {}

double FaultInjector::beginStep(int64_t step) {
    step_ = step;
    reported_.assign(faults_.size(), false);
    double factor = 1.0;
    for (size_t k = 0; k < faults_.size(); ++k) {
        const auto& f = faults_[k];
        if (f.step == step && f.kind == "scale_loss") {
            factor *= f.factor;
            reportOnce(k);
        }
    }
    return factor;
}

void FaultInjector::reportOnce(size_t index) {
    if (index >= reported_.size() || reported_[index]) return;
    reported_[index] = true;
    if (report_) report_(faults_[index]);
}

void FaultInjector::afterLayer(size_t, const std::string& name, torch::Tensor& output) {
    for (size_t k = 0; k < faults_.size(); ++k) {
        const auto& f = faults_[k];
        if (f.step != step_ || f.layer != name || output.numel() == 0) continue;
        if (f.kind == "inf_activation" || f.kind == "nan_activation") {
            // A replacement that keeps the graph: grads still flow to the layer.
            NamedOpScope fault(inserted_op::kInjectedFault, output);
            auto mask = torch::zeros_like(output);
            mask.view({-1})[0].fill_(1.0);
            output = torch::where(mask.to(torch::kBool), torch::full_like(output, faultValue(f.kind)), output);
            fault.output(output);
            reportOnce(k);
        } else if (f.kind == "scale_activation") {
            // Multiplied, not replaced: the graph and the gradients to the layer stay.
            NamedOpScope fault(inserted_op::kInjectedFault, output);
            output = fault.output(output * f.factor);
            reportOnce(k);
        } else if (f.kind == "alloc_failure") {
            // What running out of memory looks like from the engine: the allocator throws.
            reportOnce(k);
            throw std::bad_alloc();
        } else if ((f.kind == "inf_grad" || f.kind == "nan_grad") && output.requires_grad()) {
            const double value = faultValue(f.kind);
            output.register_hook([value](torch::Tensor grad) { return withFirstElement(grad, value); });
            reportOnce(k);
        }
    }
}

}  // namespace ampscope
