#pragma once
// INTERNAL (includes torch). Compares two captures of the same step (OpCapture.h): the
// run's, in its precision mode, and the reference's, and fills a precision_map record
// (PrecisionMapRecord.h, which defines each number).
//
// Alignment: ops are matched within each module and phase by their order, as the
// longest common subsequence of their names (an op one side ran and the other did not
// is listed in `unmatched`, the rest stay matched); outputs of matched ops by their
// index. An output whose element count differs is listed too. The alignment and the
// comparison made while the reference is captured are PrecisionMapStream.h's (which
// also implements comparePrecisionMaps); this file measures one output against its
// reference.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "precision/ComputePolicy.h"
#include "probes/OpCapture.h"
#include "probes/PrecisionMapRecord.h"

namespace ampscope {

// The format whose spacing measures one phase's errors.
struct MapFormat {
    std::string name = "fp32";
    int bits = 24;  // significand bits, implicit bit included
    // Smallest normal exponent of an unscaled format (below it the spacing stays
    // 2^(minExponent - bits + 1)); none for the scaled formats, whose range moves with
    // their scales.
    std::optional<int> minExponent = -126;
};

struct MapFormats {
    MapFormat forward, backward;
};

// The formats a mode holds its values in (the element format for fp8, MX and NVFP4).
MapFormats mapFormatsOf(const ComputePolicy& policy);

// Fills the numbers of one output (not its op's names): `run` against `reference`, and
// against `rerun` (the op again in the reference dtype) for added_error when defined.
void measureOutput(const torch::Tensor& run, const torch::Tensor& reference, const torch::Tensor& rerun,
                   const MapFormat& format, PrecisionMapOp& into);

namespace probe_detail {
// measureOutput by the torch ops that tensors off the CPU take, for tensors on any device:
// the tests hold that way and the CPU's single pass to the same numbers on CPU tensors.
void measureOutputWithTorchOps(const torch::Tensor& run, const torch::Tensor& reference, const torch::Tensor& rerun,
                               const MapFormat& format, PrecisionMapOp& into);
// The CPU pass's per-element arithmetic: AVX-512 where the CPU has it, else the scalar
// loop; false holds the scalar loop on any CPU (tests hold both to the same numbers).
// Returns whether the AVX-512 loop is in use.
bool useVectorMapPass(bool allowed);
}  // namespace probe_detail

// The record's ops, modules and unmatched list (step, mode and reference are the caller's).
PrecisionMapRecord comparePrecisionMaps(const std::vector<CapturedOp>& run,
                                        const std::vector<CapturedOp>& reference, const MapFormats& formats);

}  // namespace ampscope
