#pragma once
// INTERNAL (includes torch). Rounding of fp32 values to the formats that real
// low-precision hardware would hold, for emulation on CPUs without the kernels.
//
// - Half: nearest binary16, ties to even (exactly what x.to(kHalf) does):
//   >= 65520 becomes inf, < 2^-25 becomes 0, [2^-24, 2^-14) is subnormal.
// - BFloat16: nearest bfloat16 (x.to(kBFloat16)).
// - Tf32: 10 explicit mantissa bits, round to nearest with ties away from zero
//   (what the PTX conversion cvt.rna.tf32.f32 does); exponent range of fp32.
// NaN and ±Inf pass through every rounding unchanged.
#include <torch/torch.h>

namespace ampscope {

enum class Rounding { None, Half, BFloat16, Tf32 };

torch::Tensor roundTo(const torch::Tensor& values, Rounding rounding);
torch::Tensor roundToHalf(const torch::Tensor& values);
torch::Tensor roundToTf32(const torch::Tensor& values);
float roundToTf32(float value);  // scalar reference, used by tests and checks

// Autograd-aware rounding: forward rounds the value with `forward`, backward
// rounds the incoming gradient with `backward`. This is how emulation makes the
// gradients flowing back through a matmul/conv land in fp16 as they would under
// real fp16 autocast.
torch::Tensor roundWithGradient(const torch::Tensor& values, Rounding forward, Rounding backward);

}  // namespace ampscope
