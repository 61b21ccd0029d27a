#pragma once
// Test data for the gradient probes (includes torch): gradient-like float32
// values over a wide exponent range (2^-160 .. 2^48, so fp32 subnormals and
// fp16 overflow both occur), both signs, with a special value (±0, NaN, ±Inf,
// 65520, 2^-25, 65504) every `specialEvery` elements.
#include <torch/torch.h>

#include <cmath>
#include <cstdint>

inline torch::Tensor wideRandomGradients(int64_t n, uint64_t seed, int64_t specialEvery) {
    torch::manual_seed(seed);
    const auto exponent = torch::randint(-160, 48, {n}, torch::kDouble);
    const auto mantissa = torch::rand({n}, torch::kDouble) + 1.0;
    const auto sign = torch::randint(0, 2, {n}, torch::kDouble) * 2 - 1;
    auto x = (sign * mantissa * torch::pow(2.0, exponent)).to(torch::kFloat);
    const float specials[] = {0.0f, -0.0f, std::nanf(""), INFINITY, -INFINITY, 65520.0f, 0x1p-25f, 65504.0f};
    auto* data = x.data_ptr<float>();
    for (int64_t i = 0; i < n; i += specialEvery) data[i] = specials[(i / specialEvery) % 8];
    return x;
}
