#pragma once
// Plain (no torch). What one probe step's forward really did, as values:
// - OpDtypes: per layer, each op it ran and in which dtypes (what autocast
//   actually chose, or what emulation made the fp32 values carry);
// - MemoryUsage: process memory and the bytes of the layer outputs kept for
//   backward, grouped by dtype.
// StepAuditRecords.h writes and reads them; OpDtypeAudit.h and
// ActivationBytes.h measure them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ampscope {

struct OpDtype {
    std::string op;      // aten name without "aten::": linear, conv2d, matmul, softmax, ...
    std::string input;   // dtype of the first tensor argument ("float32", "bfloat16", ...)
    std::string weight;  // dtype of the second tensor argument; "" when the op has none
    std::string output;  // dtype of the first tensor result
    // The tensors are float32 but hold values rounded to another format by
    // emulation; input/weight/output then name that format and storage says
    // "float32". emulatedAs is "float16" or "tfloat32".
    bool emulated = false;
    std::string emulatedAs;
};

struct LayerOps {
    std::string layer;  // a layer name, or "loss"
    std::vector<OpDtype> ops;
};

struct MemoryUsage {
    int64_t rssBytes = 0;      // VmRSS now (end of the step)
    int64_t peakRssBytes = 0;  // VmHWM: the process's peak so far
    std::optional<int64_t> cudaPeakAllocatedBytes;  // CUDA allocator peak; none on CPU
    // Bytes of every layer output of the step, by the dtype it is stored in.
    std::map<std::string, int64_t> activationBytes;
    // The same outputs by the dtype real low-precision hardware would store
    // (differs from activationBytes only under emulation).
    std::map<std::string, int64_t> activationBytesReal;
};

}  // namespace ampscope
