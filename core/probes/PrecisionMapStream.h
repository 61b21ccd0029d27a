#pragma once
// INTERNAL (includes torch). The precision map's comparison made while the reference is
// captured (PrecisionMapCompare.h measures each output; PrecisionMapRecord.h defines the
// numbers).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "probes/OpCapture.h"
#include "probes/PrecisionMapCompare.h"
#include "probes/PrecisionMapRecord.h"

namespace ampscope {

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
