#include "probes/GradientProbe.h"

#include <stdexcept>
#include <string>

#include "kernels/ProbeElementRules.h"
#include "probes/Fp16Classifier.h"
#include "probes/HistogramProbe.h"
#include "probes/ProbeInput.h"

#if defined(AMPSCOPE_HAVE_FUSED_PROBE)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "kernels/FusedProbeKernel.h"
#endif

namespace ampscope {
namespace {

namespace rules = probe_rules;
namespace class_slot = fp16_class_slot;

void checkMultiplierCount(const std::vector<double>& multipliers) {
    if (multipliers.size() > static_cast<size_t>(rules::kMaxPlans))
        throw std::invalid_argument("gradient probe: " + std::to_string(multipliers.size()) +
                                    " multipliers, at most " + std::to_string(rules::kMaxPlans));
}

#if defined(AMPSCOPE_HAVE_FUSED_PROBE)

cuda_kernels::ElementType elementTypeOf(const torch::Tensor& prepared) {
    switch (prepared.scalar_type()) {
        case torch::kHalf: return cuda_kernels::ElementType::Float16;
        case torch::kBFloat16: return cuda_kernels::ElementType::BFloat16;
        default: return cuda_kernels::ElementType::Float32;
    }
}

GradientProbeSlots runFusedKernel(const std::vector<torch::Tensor>& values,
                                  const std::vector<double>& multipliers) {
    std::vector<rules::Fp16Plan> plans;
    for (double m : multipliers) plans.push_back(rules::planFp16(m));
    const auto planCount = static_cast<int>(plans.size());
    torch::Tensor counters;  // int64 on the device: the kernel's unsigned 64-bit counters
    for (const auto& t : values) {
        if (!t.defined()) continue;
        if (!t.is_cuda()) throw std::invalid_argument("fused probe: tensor not on a CUDA device");
        if (counters.defined() && t.device() != counters.device())
            throw std::invalid_argument("fused probe: tensors on different devices");
        const torch::Tensor input = probe_input::prepare(t, "fused probe");
        const bool accumulate = counters.defined();
        if (!accumulate) counters = torch::empty({rules::fusedSlotCount(planCount)}, input.options().dtype(torch::kLong));
        const c10::cuda::CUDAGuard guard(input.device());
        cuda_kernels::FusedProbeLaunch launch;
        launch.data = input.data_ptr();
        launch.count = input.numel();
        launch.type = elementTypeOf(input);
        launch.plans = plans.data();
        launch.planCount = planCount;
        launch.out = reinterpret_cast<unsigned long long*>(counters.data_ptr<int64_t>());
        launch.stream = c10::cuda::getCurrentCUDAStream(input.device().index()).stream();
        launch.accumulate = accumulate;
        // `input` may be a temporary: freeing it after the launch is stream-ordered in
        // torch's caching allocator, so the kernel still reads it.
        if (const std::string error = cuda_kernels::launchFusedProbe(launch); !error.empty())
            throw std::runtime_error(error);
    }
    if (!counters.defined()) {
        GradientProbeSlots none;
        none.histogram = torch::zeros({histogram_slot::kCount}, torch::kDouble);
        none.classes = torch::zeros({static_cast<int64_t>(planCount), class_slot::kCount}, torch::kDouble);
        return none;
    }
    const auto slots = counters.to(torch::kDouble);
    const auto perPlan = slots.slice(0, rules::kHistogramSlots).view({planCount, rules::kClassCount});
    GradientProbeSlots out;
    out.histogram = slots.slice(0, 0, rules::kHistogramSlots);
    out.classes = torch::cat({perPlan.slice(1, 0, rules::kClassPosInf),
                              perPlan.slice(1, rules::kClassPosInf).sum(1, true)},
                             1);
    return out;
}

#endif

}  // namespace

bool fusedProbeBuilt() {
#if defined(AMPSCOPE_HAVE_FUSED_PROBE)
    return true;
#else
    return false;
#endif
}

namespace probe_detail {

GradientProbeSlots fusedProbeSlots(const std::vector<torch::Tensor>& values,
                                   const std::vector<double>& multipliers) {
    checkMultiplierCount(multipliers);
#if defined(AMPSCOPE_HAVE_FUSED_PROBE)
    return runFusedKernel(values, multipliers);
#else
    throw std::logic_error("fused probe: this build has no CUDA kernels (CPU LibTorch or AMPSCOPE_CUDA_KERNELS=OFF)");
#endif
}

}  // namespace probe_detail

GradientProbeSlots gradientProbeSlots(const std::vector<torch::Tensor>& values,
                                      const std::vector<double>& multipliers) {
    checkMultiplierCount(multipliers);
#if defined(AMPSCOPE_HAVE_FUSED_PROBE)
    for (const auto& t : values)
        if (t.defined()) {
            if (t.is_cuda()) return runFusedKernel(values, multipliers);
            break;
        }
#endif
    GradientProbeSlots out;
    out.histogram = histogramSlots(values);
    out.classes = multipliers.empty()
                      ? torch::zeros({0, class_slot::kCount}, out.histogram.options())
                      : fp16ClassSlots(values, multipliers);
    return out;
}

}  // namespace ampscope
