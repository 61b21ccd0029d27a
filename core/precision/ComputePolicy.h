#pragma once
// INTERNAL (includes torch). How a layer's matmul/conv runs under the chosen
// precision mode: what its operands and results go through (rounding for
// emulated modes, fake quantization for the format modes), whether real autocast
// is on, and which layers are kept in fp32. Layers call input()/weight()/result() around their matmul or conv; the model
// applies the autocast/keep-fp32 part around each layer.
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <torch/torch.h>

#include "config/RunConfig.h"
#include "precision/FormatQuantizer.h"
#include "precision/InsertedOps.h"
#include "precision/PrecisionMode.h"
#include "precision/Rounding.h"

namespace ampscope {

// What one rounding slot does: a plain Rounding (the fp16, bf16 and tf32 emulation,
// elementwise and stateless) or a format quantizer (fp8, MX, NVFP4: scaled, and with
// delayed scaling stateful per point). At most one of the two is set.
struct RoundingSlot {
    Rounding rounding = Rounding::None;
    FormatQuantizer format;

    RoundingSlot() = default;
    RoundingSlot(Rounding r) : rounding(r) {}                 // NOLINT: a slot is a Rounding
    RoundingSlot(const FormatQuantizer& f) : format(f) {}     // NOLINT: or a format
    bool none() const { return rounding == Rounding::None && format.none(); }
    bool operator==(const RoundingSlot&) const = default;
    bool operator==(Rounding r) const { return format.none() && rounding == r; }
};

// What one layer's matmul/conv operands and results are rounded to, forward
// and backward. Identity for real modes and for layers kept in fp32.
struct LayerCompute {
    RoundingSlot operandForward;
    RoundingSlot operandBackward;
    RoundingSlot resultForward;
    RoundingSlot resultBackward;
    // Hand-written uses of ops that autocast promotes to fp32 (exp, log, sum, pow,
    // softmax): under autocast (real or emulated) they run in fp32, so None; in pure
    // emulation nothing is promoted and they hold the low format.
    Rounding promotedForward = Rounding::None;
    Rounding promotedBackward = Rounding::None;
    // Where each rounding reports to (probe steps); null: nobody listens. Kept
    // layers have tags too (input() reports there in every mode).
    const RoundingTag* inputTag = nullptr;
    const RoundingTag* weightTag = nullptr;
    const RoundingTag* outputTag = nullptr;
    // The format modes' state of the same three points (the policy owns it), and the
    // generator of stochastic rounding; null where no format slot is set.
    FormatPoints* inputPoints = nullptr;
    FormatPoints* weightPoints = nullptr;
    FormatPoints* outputPoints = nullptr;
    at::Generator* generator = nullptr;

    // An activation entering a matmul/conv. `layout`: where its reduction dimension is,
    // for the block formats' blocks (FormatQuantizer.h); the other roundings ignore it.
    // An observer on the tag sees it first, as it is (before any rounding), in every
    // mode: the format sweep's activations.
    torch::Tensor input(const torch::Tensor& t, BlockLayout layout = BlockLayout::LastDim) const {
        if (inputTag && inputTag->observer) inputTag->observer->matmulInput(*inputTag, t, layout);
        return apply(inserted_op::kOperand, t, operandForward, operandBackward, inputTag, inputPoints, layout);
    }
    // A parameter entering a matmul/conv: its backward rounding is the
    // parameter's gradient as fp16 holds it.
    torch::Tensor weight(const torch::Tensor& t, BlockLayout layout = BlockLayout::LastDim) const {
        return apply(inserted_op::kOperand, t, operandForward, operandBackward, weightTag, weightPoints, layout);
    }
    // A bias added inside a matmul/conv (linear, conv, addmm). The plain roundings
    // hold it with the weights, as autocast casts it with them; the format modes add
    // it in fp32, as Transformer Engine does: it is no operand of the product, and
    // its own scale would share the weight's rounding point.
    torch::Tensor bias(const torch::Tensor& t) const {
        if (!operandForward.format.none() || !operandBackward.format.none()) return t;
        return weight(t);
    }
    // A matmul/conv output: forward holds the activation, backward the gradient
    // arriving at it (dY, the operand of both backward matmuls).
    torch::Tensor result(const torch::Tensor& t, BlockLayout layout = BlockLayout::LastDim) const {
        return apply(inserted_op::kOpResult, t, resultForward, resultBackward, outputTag, outputPoints, layout);
    }
    bool identity() const {
        return operandForward.none() && operandBackward.none() && resultForward.none() &&
               resultBackward.none() && promotedForward == Rounding::None &&
               promotedBackward == Rounding::None;
    }

private:
    // The rounding of one operand or result, named in the op stream as the TorchScript
    // graph pass names it (`opName`, InsertedOps.h).
    torch::Tensor apply(const char* opName, const torch::Tensor& t, const RoundingSlot& forward,
                        const RoundingSlot& backward, const RoundingTag* tag, FormatPoints* points,
                        BlockLayout layout) const;
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

    // Does a slot hold a format quantizer (modes fp8, mxfp8, mxfp4, nvfp4)?
    bool quantizesFormats() const;
    // Seeds the generator of stochastic rounding (nvfp4's gradients) from the run's
    // seed, so a run and its rerun draw the same numbers.
    void seedStochasticRounding(uint64_t seed);
    // The format state of one layer's points (input, weight, output): delayed
    // scaling's amax histories. Null for a layer forLayer() never handed out.
    const std::array<FormatPoints, 3>* formatPoints(const std::string& layer) const;

    // What the format modes carry from step to step: delayed scaling's amax histories
    // and the stochastic-rounding generator's state. Saved at a step's start and put
    // back around the first-NaN replay, so the replay quantizes as the step did and
    // the histories advance once per step, not twice.
    struct FormatState {
        std::map<std::string, std::array<FormatPoints, 3>> layers;
        torch::Tensor generatorState;  // undefined without stochastic rounding
    };
    FormatState saveFormatState() const;
    void restoreFormatState(const FormatState& state) const;

private:
    // Per layer: the tags and the format state of its three points. Shared by copies
    // of the policy (a model and the contexts that run it see one state); every
    // Trainer builds its own policy, so a twin trainer (fp32 shadow, lock-step B)
    // keeps its own histories and generator.
    struct LayerPoints {
        std::array<RoundingTag, 3> tags;
        std::array<FormatPoints, 3> formats;
    };
    struct Points {
        std::map<std::string, LayerPoints> layers;
        std::optional<at::Generator> generator;
    };
    LayerPoints& pointsOf(const std::string& layer) const;
    std::shared_ptr<Points> points_ = std::make_shared<Points>();
};

// Builds the policy for a mode on a device; sets the CUDA TF32 switches to
// match the mode (on for real tf32, off otherwise) when the device is CUDA.
// precision.emulate "always" gives a CUDA device the CPU's emulation of tf32, fp16
// and fp16-pure.
ComputePolicy makeComputePolicy(const PrecisionConfig& precision, const c10::Device& device);

}  // namespace ampscope
