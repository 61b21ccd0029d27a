#pragma once
// INTERNAL (includes torch). Compares two captures of the same step (OpCapture.h): the
// run's, in its precision mode, and the reference's, and fills a precision_map record
// (PrecisionMapRecord.h, which defines each number).
//
// Alignment: ops are matched within each module and phase by their order, as the
// longest common subsequence of their names (an op one side ran and the other did not
// is listed in `unmatched`, the rest stay matched); outputs of matched ops by their
// index. An output whose element count differs is listed too.
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
}  // namespace probe_detail

// The record's ops, modules and unmatched list (step, mode and reference are the caller's).
PrecisionMapRecord comparePrecisionMaps(const std::vector<CapturedOp>& run,
                                        const std::vector<CapturedOp>& reference, const MapFormats& formats);

// The same comparison while the reference is captured (the sink of its OpCapture): each
// reference op is compared as soon as it is kept, against the run's op it is matched
// with, and its values are dropped, so a mapped step does not hold every reference
// output to the end. Within a module and phase the ops pair by position while both
// sides' names agree, which is where the longest common subsequence pairs them too;
// from the first disagreement on, that group's reference ops are kept and aligned at
// finish(). A reference value a later rounding replaces is compared again (the run's
// values are kept until finish()). The record is comparePrecisionMaps's, bit for bit.
class PrecisionMapStream final : public CaptureSink {
public:
    PrecisionMapStream(std::vector<CapturedOp> run, MapFormats formats);
    void opKept(std::vector<CapturedOp>& reference, size_t index) override;
    void valueReplaced(std::vector<CapturedOp>& reference, size_t index, size_t output) override;
    // The reference's ops as its capture kept them (the values compared already dropped).
    PrecisionMapRecord finish(const std::vector<CapturedOp>& reference);

private:
    using Group = std::pair<bool, std::string>;  // (backward, module)
    struct GroupState {
        std::vector<size_t> run;        // the run's ops of the group, in order
        std::vector<size_t> reference;  // the reference's, in order, as they come
        size_t paired = 0;              // the leading positions paired while the names agreed
        bool diverged = false;
    };
    void pair(size_t runIndex, std::vector<CapturedOp>& reference, size_t referenceIndex);
    void measure(size_t runIndex, size_t position, const CapturedOp& reference);

    std::vector<CapturedOp> run_;
    MapFormats formats_;
    std::map<Group, GroupState> groups_;
    std::vector<long> partner_;           // run op -> its reference op, -1 while none
    std::vector<long> referencePartner_;  // reference op -> its run op, -1 while none
    // Per run op and output (its position in outputs): the measured row, or none where the
    // reference has no output of that index and size.
    std::vector<std::vector<std::optional<PrecisionMapOp>>> rows_;
    // What each compared reference output was (its memory, layout and version): a rounding
    // that hands the same values back unchanged (the reference rounds nothing) needs no
    // second comparison. The capture holds each value as a detached alias, so the memory
    // says whether two are one tensor; the version (shared with every alias) whether it
    // was written since. The rounded tensor is alive then, so its memory is not reused.
    struct Compared {
        const void* data = nullptr;
        std::vector<int64_t> sizes, strides;
        c10::ScalarType dtype = c10::ScalarType::Undefined;
        int64_t version = -1;

        static Compared of(const torch::Tensor& t);
        bool operator==(const Compared& o) const {
            return data == o.data && sizes == o.sizes && strides == o.strides && dtype == o.dtype &&
                   version == o.version;
        }
    };
    std::map<std::pair<size_t, size_t>, Compared> compared_;  // (reference op, output position)
};

}  // namespace ampscope
