#pragma once
// The precision modes of DESIGN.md, the low-precision format modes (fp8, MXFP8,
// MXFP4, NVFP4), and how each one runs on a device.
// Plain C++: the UI and reports use it to say "real" or "emulated" plainly.
#include <string>

#include "config/RunConfig.h"

namespace ampscope {

enum class PrecisionMode { Fp32, Tf32, Fp16, Bf16, Fp16Pure, Bf16Pure, Fp8, Mxfp8, Mxfp4, Nvfp4 };

PrecisionMode parsePrecisionMode(const std::string& name);  // InputError on unknown
std::string precisionModeName(PrecisionMode mode);          // "fp16-pure"

// Does the mode keep its weights in half precision (no fp32 master copy)?
bool isPureMode(PrecisionMode mode);
// Does the mode's forward use 16-bit floats (autocast or pure)?
bool isHalfMode(PrecisionMode mode);
// fp16 flavours: the ones for which a loss scaler makes sense by default.
bool isFp16Mode(PrecisionMode mode);
// fp8, mxfp8, mxfp4, nvfp4: matmul/conv operands fake-quantized to a low-precision
// format (precision/FormatQuantizer.h), everything else fp32. Emulated on every device.
bool isFormatMode(PrecisionMode mode);

struct ModeExecution {
    bool emulated = false;
    std::string how;  // one line, e.g. "real bf16 autocast on CPU"
};

// The loss scaler a config really runs: "dynamic", "static" or "off". "auto"
// means dynamic for fp16 and off for every other mode (bf16 needs none; pure
// fp16 gradients are refused by the scaler, as PyTorch refuses them).
std::string resolvedScalerKind(const std::string& mode, const std::string& kind);

// What actually happens for `mode` on a CPU (cuda=false) or a CUDA device.
// forceEmulation (precision.emulate "always") emulates tf32, fp16 and fp16-pure on
// CUDA as on the CPU; fp32, bf16 and bf16-pure have no emulation and stay real.
// A format mode is described with the default settings of its precision.fp8/mx/nvfp4.
ModeExecution describeExecution(PrecisionMode mode, bool cuda, bool forceEmulation = false);
// The same for a whole precision config: a format mode names its formats and recipe,
// e.g. "emulated fp8 (e4m3 forward, e5m2 gradients, delayed scaling) on CPU".
ModeExecution describeExecution(const PrecisionConfig& precision, bool cuda);

// Does precision.emulate ask for emulation on every device? ("auto" does not.)
bool emulationForced(const std::string& emulate);

}  // namespace ampscope
