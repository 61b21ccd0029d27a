#include "precision/PrecisionMode.h"

#include "common/InputError.h"

namespace ampscope {

PrecisionMode parsePrecisionMode(const std::string& name) {
    if (name == "fp32") return PrecisionMode::Fp32;
    if (name == "tf32") return PrecisionMode::Tf32;
    if (name == "fp16") return PrecisionMode::Fp16;
    if (name == "bf16") return PrecisionMode::Bf16;
    if (name == "fp16-pure") return PrecisionMode::Fp16Pure;
    if (name == "bf16-pure") return PrecisionMode::Bf16Pure;
    if (name == "fp8") return PrecisionMode::Fp8;
    if (name == "mxfp8") return PrecisionMode::Mxfp8;
    if (name == "mxfp4") return PrecisionMode::Mxfp4;
    if (name == "nvfp4") return PrecisionMode::Nvfp4;
    throw InputError("precision.mode: must be one of fp32, tf32, fp16, bf16, fp16-pure, bf16-pure,"
                     " fp8, mxfp8, mxfp4, nvfp4 (got \"" + name + "\")");
}

std::string precisionModeName(PrecisionMode mode) {
    switch (mode) {
        case PrecisionMode::Fp32: return "fp32";
        case PrecisionMode::Tf32: return "tf32";
        case PrecisionMode::Fp16: return "fp16";
        case PrecisionMode::Bf16: return "bf16";
        case PrecisionMode::Fp16Pure: return "fp16-pure";
        case PrecisionMode::Bf16Pure: return "bf16-pure";
        case PrecisionMode::Fp8: return "fp8";
        case PrecisionMode::Mxfp8: return "mxfp8";
        case PrecisionMode::Mxfp4: return "mxfp4";
        case PrecisionMode::Nvfp4: return "nvfp4";
    }
    return "fp32";
}

bool isPureMode(PrecisionMode mode) {
    return mode == PrecisionMode::Fp16Pure || mode == PrecisionMode::Bf16Pure;
}

bool isHalfMode(PrecisionMode mode) {
    return mode != PrecisionMode::Fp32 && mode != PrecisionMode::Tf32 && !isFormatMode(mode);
}

bool isFormatMode(PrecisionMode mode) {
    return mode == PrecisionMode::Fp8 || mode == PrecisionMode::Mxfp8 ||
           mode == PrecisionMode::Mxfp4 || mode == PrecisionMode::Nvfp4;
}

bool isFp16Mode(PrecisionMode mode) {
    return mode == PrecisionMode::Fp16 || mode == PrecisionMode::Fp16Pure;
}

std::string resolvedScalerKind(const std::string& mode, const std::string& kind) {
    if (kind == "dynamic" || kind == "static" || kind == "off") return kind;
    return mode == "fp16" ? "dynamic" : "off";
}

bool emulationForced(const std::string& emulate) { return emulate == "always"; }

namespace {

// What a format mode quantizes, in the words of its settings.
std::string formatModeDetails(PrecisionMode mode, const PrecisionConfig& precision) {
    switch (mode) {
        case PrecisionMode::Fp8:
            return std::string(precision.fp8.format == "e4m3" ? "e4m3 forward and gradients"
                                                               : "e4m3 forward, e5m2 gradients") +
                   ", " + precision.fp8.recipe + " scaling";
        case PrecisionMode::Mxfp8:
            return "e4m3 forward, e5m2 gradients, blocks of 32 with e8m0 scales (" +
                   precision.mx.scale_rule + ")";
        case PrecisionMode::Mxfp4:
            return "e2m1 everywhere, blocks of 32 with e8m0 scales (" + precision.mx.scale_rule + ")";
        case PrecisionMode::Nvfp4:
            return std::string("e2m1 in blocks of 16 with e4m3 and fp32 scales") +
                   (precision.nvfp4.stochastic_gradients ? ", stochastic rounding of gradients" : "");
        default: return "";
    }
}

}  // namespace

ModeExecution describeExecution(const PrecisionConfig& precision, bool cuda) {
    const PrecisionMode mode = parsePrecisionMode(precision.mode);
    if (!isFormatMode(mode)) return describeExecution(mode, cuda, emulationForced(precision.emulate));
    // No device here has these formats' units: the matmul/conv operands are fake-quantized
    // (quantized, then dequantized to fp32) and the products accumulate in fp32.
    return {true, "emulated " + precisionModeName(mode) + " (" + formatModeDetails(mode, precision) +
                      ") on " + (cuda ? "CUDA" : "CPU") +
                      "; matmul/conv operands fake-quantized, fp32 accumulation and master weights"};
}

ModeExecution describeExecution(PrecisionMode mode, bool cuda, bool forceEmulation) {
    if (isFormatMode(mode)) {
        PrecisionConfig defaults;
        defaults.mode = precisionModeName(mode);
        return describeExecution(defaults, cuda);
    }
    if (cuda && forceEmulation) {
        switch (mode) {
            case PrecisionMode::Tf32:
                return {true, "emulated TF32 on CUDA (precision.emulate: always; matmul/conv inputs "
                              "rounded to 10 mantissa bits, TF32 units off)"};
            case PrecisionMode::Fp16:
                return {true, "emulated fp16 autocast on CUDA (precision.emulate: always; values "
                              "rounded to binary16 where fp16 autocast holds them), fp32 master weights"};
            case PrecisionMode::Fp16Pure:
                return {true, "emulated pure fp16 on CUDA (precision.emulate: always; weights and "
                              "values rounded to binary16, no master copy)"};
            default: break;  // no emulation of these: real, as below
        }
    }
    if (cuda) {
        switch (mode) {
            case PrecisionMode::Fp32: return {false, "real fp32 on CUDA (TF32 off)"};
            case PrecisionMode::Tf32: return {false, "real TF32 matmul/conv on CUDA"};
            case PrecisionMode::Fp16: return {false, "real fp16 autocast on CUDA, fp32 master weights"};
            case PrecisionMode::Bf16: return {false, "real bf16 autocast on CUDA, fp32 master weights"};
            case PrecisionMode::Fp16Pure: return {false, "real fp16 weights and compute on CUDA"};
            case PrecisionMode::Bf16Pure: return {false, "real bf16 weights and compute on CUDA"};
            default: break;  // format modes: above
        }
    }
    // CPU LibTorch has bf16 kernels and CPU autocast for bf16, but no fp16 kernels
    // for matmul/conv/relu and no TF32 units: those two are emulated by rounding.
    switch (mode) {
        case PrecisionMode::Fp32: return {false, "real fp32 on CPU"};
        case PrecisionMode::Tf32:
            return {true, "emulated TF32 on CPU (matmul/conv inputs rounded to 10 mantissa bits)"};
        case PrecisionMode::Fp16:
            return {true, "emulated fp16 autocast on CPU (values rounded to binary16 where fp16 "
                          "autocast holds them), fp32 master weights"};
        case PrecisionMode::Bf16: return {false, "real bf16 autocast on CPU, fp32 master weights"};
        case PrecisionMode::Fp16Pure:
            return {true, "emulated pure fp16 on CPU (weights and values rounded to binary16, "
                          "no master copy)"};
        case PrecisionMode::Bf16Pure: return {false, "real bf16 weights and compute on CPU"};
        default: break;  // format modes: above
    }
    return {false, "real"};
}

}  // namespace ampscope
