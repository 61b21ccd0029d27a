#pragma once
// INTERNAL (includes torch). Rounding of fp32 values to the formats that real
// low-precision hardware would hold, for emulation on CPUs without the kernels.
//
// - Half: nearest binary16, ties to even (exactly what x.to(kHalf) does); where that
//   flushes to 0, keeps a subnormal or overflows to inf is precision/Fp16Limits.h.
// - BFloat16: nearest bfloat16 (x.to(kBFloat16)).
// - Tf32: 10 explicit mantissa bits, round to nearest with ties away from zero
//   (what the PTX conversion cvt.rna.tf32.f32 does); exponent range of fp32.
// NaN and ±Inf pass through every rounding unchanged.
#include <string>

#include <torch/torch.h>

#include "precision/BlockLayout.h"

namespace ampscope {

enum class Rounding { None, Half, BFloat16, Tf32 };

torch::Tensor roundTo(const torch::Tensor& values, Rounding rounding);
torch::Tensor roundToHalf(const torch::Tensor& values);
torch::Tensor roundToTf32(const torch::Tensor& values);
float roundToTf32(float value);  // scalar reference, used by tests and checks

// Where a rounding happens: which layer, which operand of its matmul/conv.
enum class RoundingOperand { Input, Weight, Output };

class RoundingObserver;
struct FormatQuantizer;     // precision/FormatQuantizer.h
struct QuantizationStats;   // precision/formats/QuantizationStats.h

// One per (layer, operand), alive as long as the model. observer is set only on
// probe steps, so a rounding point costs one pointer test otherwise.
struct RoundingTag {
    std::string layer;
    RoundingOperand operand = RoundingOperand::Input;
    RoundingObserver* observer = nullptr;
};

// Sees each fp32 tensor just before emulation rounds it, so counts of what the
// rounding flushes or overflows are exact, and each activation entering a
// matmul/conv. Called on the thread that runs the forward or the backward (the
// engine thread for CPU autograd).
class RoundingObserver {
public:
    virtual ~RoundingObserver() = default;
    virtual void beforeRounding(const RoundingTag& tag, bool backward, const torch::Tensor& values,
                                Rounding rounding) = 0;
    // The format modes: what one fake quantization at the tag's point did. Its
    // statistics are computed only while an observer listens (probe steps).
    virtual void afterQuantizing(const RoundingTag& tag, bool backward, const FormatQuantizer& quantizer,
                                 const QuantizationStats& stats) {}
    // An activation entering a matmul/conv (LayerCompute::input) as the layer holds
    // it, before any rounding or quantization, in every mode (also fp32 and kept
    // layers, where nothing rounds): what the format sweep measures.
    // `layout`: where its reduction dimension is (the sweep's blocks run there).
    virtual void matmulInput(const RoundingTag& tag, const torch::Tensor& values, BlockLayout layout) {}
};

// Autograd-aware rounding: forward rounds the value with `forward`, backward
// rounds the incoming gradient with `backward`. This is how emulation makes the
// gradients flowing back through a matmul/conv land in fp16 as they would under
// real fp16 autocast. A tag with an observer reports both roundings.
torch::Tensor roundWithGradient(const torch::Tensor& values, Rounding forward, Rounding backward,
                                const RoundingTag* tag = nullptr);

}  // namespace ampscope
