#pragma once
// INTERNAL (includes torch). The uniforms of stochastic rounding: n floats in [0, 1),
// exactly those torch::rand({n}, generator) gives (and leaving the generator where
// torch::rand leaves it), drawn several times faster on the CPU.
//
// On the CPU, LibTorch's rand draws one value at a time under the generator's lock:
// each is the next 32-bit output y of the generator's MT19937 engine (Matsumoto and
// Nishimura's algorithm, at::mt19937), turned into (y mod 2^24) * 2^-24. Here the
// engine's state is taken out, advanced a whole state block (624 outputs) at a time,
// its outputs tempered and converted in vector loops, and put back. Other devices (a
// CUDA generator) call torch::rand itself. test_formats checks the two against each
// other on fresh and part-used generators.
#include <cstdint>

#include <torch/torch.h>

namespace ampscope {

// One draw per element, a flat float tensor of n on `device` (the generator's).
torch::Tensor uniformDraws(int64_t n, at::Generator& generator, const c10::Device& device);

// The next n draws of a CPU generator written to out. Drawing n1 and then n2 gives
// the n1 + n2 draws of one call: the passes draw a tensor's uniforms a slab at a time
// into one small buffer instead of holding one float per element.
void uniformDrawsInto(float* out, int64_t n, at::Generator& generator);

}  // namespace ampscope
