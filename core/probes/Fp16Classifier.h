#pragma once
// INTERNAL (includes torch). Exact fp16 classification (Fp16Classes.h) of the
// values of a tensor, optionally multiplied by a factor first: "what if these
// gradients were scaled by m and stored in fp16?". One call can ask for
// several multipliers (scale/2, scale, 2*scale) at the cost of one host copy.
//
// Semantics of a multiplier m (finite, > 0; std::invalid_argument otherwise):
// the classes of fp32(x * float(m)) rounded to fp16, with `zero` meaning x == 0
// (a non-zero x whose product underflows fp32 counts as flushed). For a power
// of two m the product is never formed: |x| is compared with the fp16 limits
// divided by m, which is exact and as cheap as m == 1.
//
// Like the histogram probe, results are float64 "slots" on the input's device
// (fp16_class_slot::kCount per multiplier), read with one host copy; float16
// and bfloat16 inputs are read exactly, float64 is rounded to float32 first.
#include <torch/torch.h>

#include <vector>

#include "kernels/ProbeElementRules.h"
#include "probes/Fp16Classes.h"

namespace ampscope {

namespace fp16_class_slot {
// The reported layout of probe_rules (kernels/ProbeElementRules.h): one slot for both
// infinities.
inline constexpr int64_t kZero = probe_rules::kClassZero;
inline constexpr int64_t kFlushed = probe_rules::kClassFlushed;
inline constexpr int64_t kSubnormal = probe_rules::kClassSubnormal;
inline constexpr int64_t kNormal = probe_rules::kClassNormal;
inline constexpr int64_t kOverflow = probe_rules::kClassOverflow;
inline constexpr int64_t kNan = probe_rules::kClassNan;
inline constexpr int64_t kInf = probe_rules::kClassInf;
inline constexpr int64_t kCount = probe_rules::kReportedClassCount;
}  // namespace fp16_class_slot

// Slots [multipliers.size(), fp16_class_slot::kCount], float64, on the input's
// device; no host synchronisation. The list form counts the tensors together
// (undefined ones skipped).
torch::Tensor fp16ClassSlots(const torch::Tensor& values, const std::vector<double>& multipliers);
torch::Tensor fp16ClassSlots(const std::vector<torch::Tensor>& values,
                             const std::vector<double>& multipliers);

// Reads one row of host slots (exact = true).
Fp16ClassCounts fp16ClassesFromSlots(const double* slots);

// Convenience forms that read at once (one host copy per call).
Fp16ClassCounts classifyForFp16(const torch::Tensor& values, double multiplier = 1.0);
std::vector<Fp16ClassCounts> classifyForFp16(const torch::Tensor& values,
                                             const std::vector<double>& multipliers);
std::vector<Fp16ClassCounts> classifyForFp16(const std::vector<torch::Tensor>& values,
                                             const std::vector<double>& multipliers);

namespace probe_detail {
// The torch-ops path that non-CPU devices take, callable on CPU for tests.
torch::Tensor fp16ClassSlotsWithTorchOps(const torch::Tensor& values,
                                         const std::vector<double>& multipliers);
}  // namespace probe_detail

}  // namespace ampscope
