#include "precision/ComputePolicy.h"

#include <ATen/Context.h>

namespace ampscope {

LayerCompute ComputePolicy::forLayer(const std::string& layer) const {
    if (keeps(layer)) return LayerCompute{};
    LayerCompute compute = emulation;
    if (auto it = tags_->find(layer); it != tags_->end()) {
        compute.inputTag = &it->second[0];
        compute.weightTag = &it->second[1];
        compute.outputTag = &it->second[2];
    }
    return compute;
}

void ComputePolicy::registerLayers(const std::vector<std::string>& layers) {
    for (const auto& layer : layers) {
        auto& tags = (*tags_)[layer];
        tags[0] = {layer, RoundingOperand::Input, nullptr};
        tags[1] = {layer, RoundingOperand::Weight, nullptr};
        tags[2] = {layer, RoundingOperand::Output, nullptr};
    }
}

void ComputePolicy::setRoundingObserver(RoundingObserver* observer) const {
    for (auto& [layer, tags] : *tags_)
        for (auto& tag : tags) tag.observer = observer;
}

ComputePolicy makeComputePolicy(const PrecisionConfig& precision, const c10::Device& device) {
    ComputePolicy policy;
    policy.mode = parsePrecisionMode(precision.mode);
    policy.device = device;
    // `cuda` below means "the device runs tf32/fp16 for real"; precision.emulate
    // "always" makes a CUDA run take the CPU's emulation instead.
    const bool forced = emulationForced(precision.emulate);
    const bool cuda = device.is_cuda() && !forced;
    policy.execution = describeExecution(policy.mode, device.is_cuda(), forced);
    policy.keepFp32.insert(precision.keep_fp32.begin(), precision.keep_fp32.end());
    policy.realTf32 = cuda && policy.mode == PrecisionMode::Tf32;

    if (device.is_cuda()) {
        at::globalContext().setAllowTF32CuBLAS(policy.realTf32);
        at::globalContext().setAllowTF32CuDNN(policy.realTf32);
    }

    const LayerCompute halfEverywhere{Rounding::Half, Rounding::Half, Rounding::Half,
                                      Rounding::Half};
    switch (policy.mode) {
        case PrecisionMode::Fp32: break;
        case PrecisionMode::Tf32:
            // TF32 units round their inputs; accumulation and outputs are fp32. In
            // backward the incoming gradient is itself a matmul operand, so it is
            // rounded where it enters (the result's backward).
            if (!cuda) policy.emulation = {Rounding::Tf32, Rounding::None, Rounding::None,
                                           Rounding::Tf32};
            break;
        case PrecisionMode::Fp16:
            if (cuda) {
                policy.realAutocast = true;
                policy.lowDtype = c10::ScalarType::Half;
            } else {
                policy.emulation = halfEverywhere;
            }
            break;
        case PrecisionMode::Bf16:
            policy.realAutocast = true;
            policy.lowDtype = c10::ScalarType::BFloat16;
            break;
        case PrecisionMode::Fp16Pure:
            policy.lowDtype = c10::ScalarType::Half;
            if (cuda) {
                policy.pureWeights = true;
            } else {
                policy.pureEmulated = true;
                policy.pureRounding = Rounding::Half;
                policy.emulation = halfEverywhere;
                policy.emulation.promotedForward = Rounding::Half;
                policy.emulation.promotedBackward = Rounding::Half;
            }
            break;
        case PrecisionMode::Bf16Pure:
            policy.lowDtype = c10::ScalarType::BFloat16;
            policy.pureWeights = true;
            break;
    }
    return policy;
}

}  // namespace ampscope
