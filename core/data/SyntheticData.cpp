#include "data/SyntheticData.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace ampscope {

SyntheticSet makeSpirals(int64_t samples, uint64_t seed) {
    torch::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    std::vector<torch::Tensor> points;
    std::vector<torch::Tensor> labels;
    for (int64_t k = 0; k < kSpiralClasses; ++k) {
        // Spread the remainder over the first classes so sizes differ by at most one.
        const int64_t n = samples / kSpiralClasses + (k < samples % kSpiralClasses ? 1 : 0);
        if (n == 0) continue;
        const torch::Tensor t = (torch::arange(n, torch::kFloat64) + 0.5) / double(n);
        const torch::Tensor noise = torch::randn({n}, generator, torch::kFloat64);
        const torch::Tensor angle = 2.0 * std::numbers::pi * double(k) / kSpiralClasses +
                                    kSpiralTurnRadians * t + kSpiralAngleNoise * noise;
        points.push_back(torch::stack({t * torch::cos(angle), t * torch::sin(angle)}, 1));
        labels.push_back(torch::full({n}, k, torch::kInt64));
    }
    return {torch::cat(points).to(torch::kFloat32).contiguous(), torch::cat(labels)};
}

SyntheticSet makeTinyGradients(int64_t samples, uint64_t seed) {
    torch::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    // The teacher is drawn first so that it does not depend on the sample count.
    const torch::Tensor teacher = torch::randn({kTinyGradientFeatures, 1}, generator);
    const torch::Tensor x = torch::randn({samples, kTinyGradientFeatures}, generator)
                                .mul_(std::ldexp(1.0, kTinyGradientInputExponent));
    const torch::Tensor noise =
        torch::randn({samples, 1}, generator).mul_(std::ldexp(1.0, kTinyGradientNoiseExponent));
    // mul + sum instead of matmul: BLAS results may depend on the thread count, and the
    // same seed must give the same targets on every machine.
    const torch::Tensor y = (x * teacher.t()).sum(1, /*keepdim=*/true).add_(noise);
    return {x.contiguous(), y.contiguous()};
}

}  // namespace ampscope
