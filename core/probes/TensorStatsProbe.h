#pragma once
// INTERNAL (includes torch). TensorStats (TensorStats.h) of a tensor, computed
// on its device into float64 "slots" so that many tensors can be read with one
// host copy (ProbeReadout.h, NonFiniteLocator.h).
//
// Two strengths:
// - tensorStatsSlots: everything (finite min/max/sum and the non-finite counts);
// - nonFiniteCountSlots: only the NaN/+Inf/-Inf counts and numel, the cheap
//   per-step check of the non-finite locator; min/max/sum slots are NaN.
// On CPU, a large tensor that is all finite (the usual case) costs ATen's
// vectorised reductions: a sum for the counts (any NaN/Inf makes it
// non-finite), aminmax + sum for full stats. A small tensor, or one that fails
// that test, takes one exact pass of our own (compiled for AVX-512/AVX2 where
// the CPU has them) that counts every kind and keeps the finite range and sum.
// tensorStatsSlotsOnCpu writes the result straight to host memory, for callers
// that check many small tensors every step (no tensor made, no op dispatched). On other
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

// CPU tensors only: the slots written to slots[0..kCount) directly.
void tensorStatsSlotsOnCpu(const torch::Tensor& values, bool withRange, double* slots);

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
