#include "engine/ShadowRun.h"

#include "probes/GradientComparisonProbe.h"

namespace ampscope {

RunConfig fp32ShadowConfig(const RunConfig& config) {
    RunConfig shadow = config;
    shadow.precision.mode = "fp32";
    shadow.precision.scaler.kind = "off";
    shadow.precision.keep_fp32.clear();
    shadow.faults.clear();
    return shadow;
}

ShadowRun::ShadowRun(const Trainer& main) : shadow_(main.twin(fp32ShadowConfig(main.config()))) {}

ShadowRun::~ShadowRun() = default;

std::vector<GradientComparison> ShadowRun::compare(const Trainer& main) {
    shadow_->copyStateFrom(main);
    shadow_->computeGradients(main.lastInputs(), main.lastTargets());
    std::vector<torch::Tensor> run, reference;
    for (const auto& p : main.parameters()) run.push_back(p.grad());
    for (const auto& p : shadow_->parameters()) reference.push_back(p.grad());
    return compareGradients(run, reference, main.parameterLayers(), main.model().layerNames());
}

}  // namespace ampscope
