#pragma once
// INTERNAL (includes torch). SyntheticData: the generated data sets, each built to show
// one precision effect without downloading anything.
//
// Contract: both functions return `samples` rows in generation order (the caller
// shuffles when it splits train from val); the same seed gives bit-identical tensors,
// and only a private generator seeded from `seed` is used.
//
// spirals: 3 interleaved 2-D spirals, the classic toy classification set. Class k's
//   point i has t = (i + 0.5) / n_k in (0, 1), radius r = t and angle
//   2*pi*k/3 + 4*t + 0.2 * N(0, 1): the noise is 0.2 rad of angle, i.e. a displacement
//   of 0.2 x radius, so arms stay separable but the boundary is curved.
//   inputs float32 [N, 2] in about [-1, 1], targets int64 [N] in 0..2; classes differ
//   in size by at most one sample.
//
// tiny_gradients: a linear regression whose fp16 weight gradients underflow.
//   x ~ N(0, 1) * 2^-14 (|x| ~ 6e-5, fp16's smallest normal), a seeded teacher
//   W* [32, 1] ~ N(0, 1), and y = x W* + N(0, 1) * 2^-18. The MSE weight gradient of a
//   batch of B is 2/B * x^T residual ~ 2 |x| |residual| / sqrt(B): about 4e-9 with
//   B = 128 even at the start (residual ~ |y| ~ 3e-4), below fp16's smallest
//   subnormal 2^-24 ~ 6e-8 and under half of it (2^-25), so fp16 without loss scaling
//   rounds almost every weight gradient to zero and the weights never move; scaled
//   by 2^16 the same gradients are ~2e-4, comfortably representable. (Chosen from a
//   side-by-side run: at 2^-10 Adam's normalisation still learns from the few
//   gradients that survive as subnormals, so the lesson would not show.)
//   inputs float32 [N, 32], targets float32 [N, 1].
#include <torch/torch.h>

#include <cstdint>

namespace ampscope {

inline constexpr int64_t kSpiralClasses = 3;
inline constexpr double kSpiralTurnRadians = 4.0;  // angle swept from centre to rim
inline constexpr double kSpiralAngleNoise = 0.2;   // radians
inline constexpr int64_t kTinyGradientFeatures = 32;
inline constexpr int kTinyGradientInputExponent = -14;  // x scale 2^-14
inline constexpr int kTinyGradientNoiseExponent = -18;  // target noise std 2^-18

struct SyntheticSet {
    torch::Tensor inputs;
    torch::Tensor targets;
};

SyntheticSet makeSpirals(int64_t samples, uint64_t seed);
SyntheticSet makeTinyGradients(int64_t samples, uint64_t seed);

}  // namespace ampscope
