#pragma once
// INTERNAL (includes torch). TensorStats (TensorStats.h) of a tensor, computed
// on its device into float64 "slots" so that many tensors can be read with one
// host copy (ProbeReadout.h, NonFiniteLocator.h).
//
// Two strengths:
// - tensorStatsSlots: everything (finite min/max/sum and the non-finite counts);
// - nonFiniteCountSlots: only the NaN/+Inf/-Inf counts and numel, the cheap
//   per-step check of the non-finite locator; min/max/sum slots are NaN.
// On CPU, a tensor that is all finite (the usual case) costs one of ATen's
// vectorised reductions: a sum for the counts (any NaN/Inf makes it
// non-finite), aminmax + sum for full stats (a NaN/Inf shows in the min or
// max). Their results are read at once: on the CPU that is a memory load, not
// a device synchronisation. Only a tensor that fails the fast test (or float16
// stats: no CPU aminmax) takes one exact scalar pass that counts every kind. On other
// devices torch ops compute everything without a host synchronisation.
// float16/bfloat16 are read exactly, float64 is rounded to float32 first (a
// double beyond the fp32 range counts as +-inf).
#include <torch/torch.h>

#include "probes/TensorStats.h"

namespace ampscope {

namespace stats_slot {
inline constexpr int64_t kMin = 0;  // smallest finite (NaN when none, or not computed)
inline constexpr int64_t kMax = 1;  // largest finite
inline constexpr int64_t kSum = 2;  // sum of the finite elements
inline constexpr int64_t kNan = 3;
inline constexpr int64_t kPosInf = 4;
inline constexpr int64_t kNegInf = 5;
inline constexpr int64_t kNumel = 6;
inline constexpr int64_t kCount = 7;
}  // namespace stats_slot

torch::Tensor tensorStatsSlots(const torch::Tensor& values);
torch::Tensor nonFiniteCountSlots(const torch::Tensor& values);

// Reads host slots: mean = sum / finite count, absMax = max(|min|, |max|).
TensorStats tensorStatsFromSlots(const double* slots);

// Convenience: one tensor, one host copy.
TensorStats computeTensorStats(const torch::Tensor& values);

namespace probe_detail {
// The torch-ops paths of non-CPU devices, callable on CPU for tests.
torch::Tensor tensorStatsSlotsWithTorchOps(const torch::Tensor& values);
torch::Tensor nonFiniteCountSlotsWithTorchOps(const torch::Tensor& values);
}  // namespace probe_detail

}  // namespace ampscope
