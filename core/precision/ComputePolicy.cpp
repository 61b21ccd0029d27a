#include "precision/ComputePolicy.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include "common/TorchCompat.h"

#include <mutex>

#include "precision/NamedOpScope.h"
#include "precision/OperandTap.h"

namespace ampscope {

torch::Tensor LayerCompute::apply(const char* opName, const torch::Tensor& t, const RoundingSlot& forward,
                                  const RoundingSlot& backward, const RoundingTag* tag, FormatPoints* points,
                                  BlockLayout layout) const {
    NamedOpScope scope(opName, t);
    OperandTap* tap = tag && tag->observer ? dynamic_cast<OperandTap*>(tag->observer) : nullptr;
    const torch::Tensor taken = tap ? tap->enter(*tag, t) : t;
    // The plain roundings keep their own path, so fp16/bf16/tf32 emulation is
    // exactly what it was before the formats existed.
    torch::Tensor rounded =
        forward.format.none() && backward.format.none()
            ? roundWithGradient(taken, forward.rounding, backward.rounding, tag)
            : quantizeWithGradient(taken, forward.format, backward.format, points, generator, tag, layout);
    return scope.output(tap ? tap->leave(*tag, rounded) : rounded);
}

LayerCompute ComputePolicy::forLayer(const std::string& layer) const {
    // A kept layer rounds nothing, but keeps its tags: the format sweep still sees
    // the activations entering its matmul/conv.
    const bool kept = keeps(layer);
    LayerCompute compute = kept ? LayerCompute{} : emulation;
    if (!kept && quantizesFormats()) {
        // Delayed scaling needs a history at every point, also for a module of a
        // user's model that is no layer (ops directly in a container, the root).
        auto& points = pointsOf(layer);
        compute.inputPoints = &points.formats[0];
        compute.weightPoints = &points.formats[1];
        compute.outputPoints = &points.formats[2];
        if (points_->generator) compute.generator = &*points_->generator;
    }
    if (auto it = points_->layers.find(layer); it != points_->layers.end()) {
        compute.inputTag = &it->second.tags[0];
        compute.weightTag = &it->second.tags[1];
        compute.outputTag = &it->second.tags[2];
    }
    return compute;
}

ComputePolicy::LayerPoints& ComputePolicy::pointsOf(const std::string& layer) const {
    auto [it, created] = points_->layers.try_emplace(layer);
    if (created) {
        auto& tags = it->second.tags;
        tags[0] = {layer, RoundingOperand::Input, nullptr};
        tags[1] = {layer, RoundingOperand::Weight, nullptr};
        tags[2] = {layer, RoundingOperand::Output, nullptr};
    }
    return it->second;
}

void ComputePolicy::registerLayers(const std::vector<std::string>& layers) {
    for (const auto& layer : layers) pointsOf(layer);
}

void ComputePolicy::setRoundingObserver(RoundingObserver* observer) const {
    for (auto& [layer, points] : points_->layers)
        for (auto& tag : points.tags) tag.observer = observer;
}

bool ComputePolicy::quantizesFormats() const {
    return !emulation.operandForward.format.none() || !emulation.operandBackward.format.none() ||
           !emulation.resultForward.format.none() || !emulation.resultBackward.format.none();
}

void ComputePolicy::seedStochasticRounding(uint64_t seed) {
    // On the policy's device: a CUDA tensor draws from a CUDA generator.
    points_->generator = device.is_cuda() ? torch_compat::defaultGenerator(device).clone()
                                          : at::make_generator<at::CPUGeneratorImpl>(seed);
    points_->generator->set_current_seed(seed);
}

const std::array<FormatPoints, 3>* ComputePolicy::formatPoints(const std::string& layer) const {
    auto it = points_->layers.find(layer);
    return it == points_->layers.end() ? nullptr : &it->second.formats;
}

ComputePolicy::FormatState ComputePolicy::saveFormatState() const {
    FormatState state;
    for (const auto& [layer, points] : points_->layers) state.layers.emplace(layer, points.formats);
    if (points_->generator) {
        std::lock_guard<std::mutex> lock(points_->generator->mutex());
        state.generatorState = points_->generator->get_state();
    }
    return state;
}

void ComputePolicy::restoreFormatState(const FormatState& state) const {
    // In place: the autograd graphs of the step hold pointers to these points.
    for (const auto& [layer, formats] : state.layers) pointsOf(layer).formats = formats;
    if (points_->generator && state.generatorState.defined()) {
        std::lock_guard<std::mutex> lock(points_->generator->mutex());
        points_->generator->set_state(state.generatorState);
    }
}

namespace {

// The slots of a format mode (Transformer Engine's and torchao's recipes): the
// forward operands of every matmul/conv (activation and weight) in one format,
// the gradient arriving at its output (dY, the operand of both backward matmuls)
// in the gradient format; the result's forward and the operands' gradients stay
// fp32, as the recipes accumulate and keep master weights in fp32.
void setFormatSlots(LayerCompute& compute, const FormatQuantizer& forward,
                    const FormatQuantizer& gradient) {
    compute.operandForward = forward;
    compute.resultBackward = gradient;
}

FormatQuantizer perTensorFp8(const Fp8Config& fp8, NumberFormat element) {
    FormatQuantizer q;
    q.recipe = fp8.recipe == "current" ? FormatRecipe::CurrentScaling : FormatRecipe::DelayedScaling;
    q.element = element;
    q.margin = static_cast<int>(fp8.margin);
    q.amaxHistoryLength = static_cast<int>(fp8.amax_history_len);
    q.amaxCompute = fp8.amax_compute == "most_recent" ? DelayedScaling::AmaxCompute::MostRecent
                                                      : DelayedScaling::AmaxCompute::Max;
    return q;
}

FormatQuantizer mxBlocks(const MxConfig& mx, NumberFormat element) {
    FormatQuantizer q;
    q.recipe = FormatRecipe::Mx;
    q.element = element;
    q.mxRule = mx.scale_rule == "rceil" ? MxScaleRule::Rceil : MxScaleRule::Floor;
    return q;
}

FormatQuantizer nvfp4Blocks(bool stochastic) {
    FormatQuantizer q;
    q.recipe = FormatRecipe::Nvfp4;
    q.element = NumberFormat::E2M1;
    q.stochastic = stochastic;
    return q;
}

}  // namespace

ComputePolicy makeComputePolicy(const PrecisionConfig& precision, const c10::Device& device) {
    ComputePolicy policy;
    policy.mode = parsePrecisionMode(precision.mode);
    policy.device = device;
    // `cuda` below means "the device runs tf32/fp16 for real"; precision.emulate
    // "always" makes a CUDA run take the CPU's emulation instead.
    const bool forced = emulationForced(precision.emulate);
    const bool cuda = device.is_cuda() && !forced;
    policy.execution = describeExecution(precision, device.is_cuda());
    policy.keepFp32.insert(precision.keep_fp32.begin(), precision.keep_fp32.end());
    policy.realTf32 = cuda && policy.mode == PrecisionMode::Tf32;

    if (device.is_cuda()) {
        at::globalContext().setAllowTF32CuBLAS(policy.realTf32);
        at::globalContext().setAllowTF32CuDNN(policy.realTf32);
    }

    const LayerCompute halfEverywhere{Rounding::Half, Rounding::Half, Rounding::Half,
                                      Rounding::Half};
    switch (policy.mode) {
        case PrecisionMode::Fp32: break;
        case PrecisionMode::Tf32:
            // TF32 units round their inputs; accumulation and outputs are fp32. In
            // backward the incoming gradient is itself a matmul operand, so it is
            // rounded where it enters (the result's backward).
            if (!cuda) policy.emulation = {Rounding::Tf32, Rounding::None, Rounding::None,
                                           Rounding::Tf32};
            break;
        case PrecisionMode::Fp16:
            if (cuda) {
                policy.realAutocast = true;
                policy.lowDtype = c10::ScalarType::Half;
            } else {
                policy.emulation = halfEverywhere;
            }
            break;
        case PrecisionMode::Bf16:
            policy.realAutocast = true;
            policy.lowDtype = c10::ScalarType::BFloat16;
            break;
        case PrecisionMode::Fp16Pure:
            policy.lowDtype = c10::ScalarType::Half;
            if (cuda) {
                policy.pureWeights = true;
            } else {
                policy.pureEmulated = true;
                policy.pureRounding = Rounding::Half;
                policy.emulation = halfEverywhere;
                policy.emulation.promotedForward = Rounding::Half;
                policy.emulation.promotedBackward = Rounding::Half;
            }
            break;
        case PrecisionMode::Bf16Pure:
            policy.lowDtype = c10::ScalarType::BFloat16;
            policy.pureWeights = true;
            break;
        case PrecisionMode::Fp8: {
            const auto& fp8 = precision.fp8;
            setFormatSlots(policy.emulation, perTensorFp8(fp8, NumberFormat::E4M3),
                           perTensorFp8(fp8, fp8.format == "e4m3" ? NumberFormat::E4M3 : NumberFormat::E5M2));
            break;
        }
        case PrecisionMode::Mxfp8:
            setFormatSlots(policy.emulation, mxBlocks(precision.mx, NumberFormat::E4M3),
                           mxBlocks(precision.mx, NumberFormat::E5M2));
            break;
        case PrecisionMode::Mxfp4:
            setFormatSlots(policy.emulation, mxBlocks(precision.mx, NumberFormat::E2M1),
                           mxBlocks(precision.mx, NumberFormat::E2M1));
            break;
        case PrecisionMode::Nvfp4:
            setFormatSlots(policy.emulation, nvfp4Blocks(false),
                           nvfp4Blocks(precision.nvfp4.stochastic_gradients));
            break;
    }
    // Seed 0 until the trainer seeds it from the run's seed.
    if (policy.quantizesFormats()) policy.seedStochasticRounding(0);
    return policy;
}

}  // namespace ampscope
