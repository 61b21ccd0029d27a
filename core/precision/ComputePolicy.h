#pragma once
// INTERNAL (includes torch). How a layer's matmul/conv runs under the chosen
// precision mode: what its operands and results go through (rounding for
// emulated modes), whether real autocast is on, and which layers are kept in
// fp32. Layers call input()/weight()/result() around their matmul or conv; the model
// applies the autocast/keep-fp32 part around each layer.
#include <array>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <torch/torch.h>

#include "config/RunConfig.h"
#include "precision/PrecisionMode.h"
#include "precision/Rounding.h"

namespace ampscope {

// What one layer's matmul/conv operands and results are rounded to, forward
// and backward. Identity for real modes and for layers kept in fp32.
struct LayerCompute {
    Rounding operandForward = Rounding::None;
    Rounding operandBackward = Rounding::None;
    Rounding resultForward = Rounding::None;
    Rounding resultBackward = Rounding::None;
    // Hand-written uses of ops that autocast promotes to fp32 (exp, log, sum, pow,
    // softmax): under autocast (real or emulated) they run in fp32, so None; in pure
    // emulation nothing is promoted and they hold the low format.
    Rounding promotedForward = Rounding::None;
    Rounding promotedBackward = Rounding::None;
    // Where each rounding reports to (probe steps); null: nobody listens.
    const RoundingTag* inputTag = nullptr;
    const RoundingTag* weightTag = nullptr;
    const RoundingTag* outputTag = nullptr;

    // An activation entering a matmul/conv.
    torch::Tensor input(const torch::Tensor& t) const {
        return roundWithGradient(t, operandForward, operandBackward, inputTag);
    }
    // A parameter entering a matmul/conv: its backward rounding is the
    // parameter's gradient as fp16 holds it.
    torch::Tensor weight(const torch::Tensor& t) const {
        return roundWithGradient(t, operandForward, operandBackward, weightTag);
    }
    // A matmul/conv output: forward holds the activation, backward the gradient
    // arriving at it.
    torch::Tensor result(const torch::Tensor& t) const {
        return roundWithGradient(t, resultForward, resultBackward, outputTag);
    }
    bool identity() const {
        return operandForward == Rounding::None && operandBackward == Rounding::None &&
               resultForward == Rounding::None && resultBackward == Rounding::None &&
               promotedForward == Rounding::None && promotedBackward == Rounding::None;
    }
};

struct ComputePolicy {
    PrecisionMode mode = PrecisionMode::Fp32;
    ModeExecution execution;
    c10::Device device = c10::Device(c10::kCPU);
    bool realAutocast = false;                         // autocast around forward + loss
    bool realTf32 = false;          // CUDA TF32 units on (tf32 on CUDA, not emulated)
    c10::ScalarType lowDtype = c10::ScalarType::Float;  // autocast dtype, or pure weight dtype
    bool pureWeights = false;       // weights themselves held in low precision
    bool pureEmulated = false;      // pure mode emulated: round weights after each update
    Rounding pureRounding = Rounding::None;  // rounding of every layer output in pure emulation
    LayerCompute emulation;         // for layers not kept in fp32
    std::unordered_set<std::string> keepFp32;

    bool keeps(const std::string& layer) const { return keepFp32.count(layer) > 0; }
    LayerCompute forLayer(const std::string& layer) const;

    // Rounding tags per layer (input, weight, output), created once for the
    // model's layers; setRoundingObserver() points them all at an observer
    // (a probe step) or at nobody.
    void registerLayers(const std::vector<std::string>& layers);
    void setRoundingObserver(RoundingObserver* observer) const;

private:
    std::shared_ptr<std::map<std::string, std::array<RoundingTag, 3>>> tags_ =
        std::make_shared<std::map<std::string, std::array<RoundingTag, 3>>>();
};

// Builds the policy for a mode on a device; sets the CUDA TF32 switches to
// match the mode (on for real tf32, off otherwise) when the device is CUDA.
// precision.emulate "always" gives a CUDA device the CPU's emulation of tf32, fp16
// and fp16-pure.
ComputePolicy makeComputePolicy(const PrecisionConfig& precision, const c10::Device& device);

}  // namespace ampscope
