#include "engine/SensitivityPass.h"

#include <chrono>
#include <cmath>
#include <set>

#include "common/InputError.h"
#include "engine/ShadowRun.h"
#include "precision/FormatQuantizer.h"
#include "precision/OperandTap.h"
#include "precision/formats/QuantizationStats.h"

namespace ampscope {

namespace {

// The reduction length of a matmul/conv operand as its layout places it.
int64_t reductionLength(const torch::Tensor& values, BlockLayout layout) {
    if (values.dim() == 0) return 1;
    switch (layout) {
        case BlockLayout::LastDim: return values.size(-1);
        case BlockLayout::SecondToLast: return values.dim() >= 2 ? values.size(-2) : values.size(-1);
        case BlockLayout::Channels: return values.dim() >= 2 ? values.size(1) : values.size(0);
        case BlockLayout::FlattenTrailing: return values.size(0) > 0 ? values.numel() / values.size(0) : 0;
    }
    return values.size(-1);
}

// One matmul/conv output of a layer in the reference: its value and dL/dY.
struct ReferenceOutput {
    torch::Tensor value;
    torch::Tensor gradient;  // undefined: the loss does not depend on it
};

struct LayerRecord {
    std::vector<torch::Tensor> inputs;  // activation operands, in the order the layer took them
    std::vector<ReferenceOutput> outputs;
    double flops = 0.0;
    // The operands of the output being computed: reduction lengths seen so far.
    int64_t inputReduction = 0, weightReduction = 0;
    // The format pass: how far it has come through inputs and outputs, and its result.
    size_t nextInput = 0, nextOutput = 0;
    LayerFormatSensitivity format;
};

// The tap of both passes (see the header): the reference's records, then each format's.
class LayerTap : public OperandTap {
public:
    enum class Phase { Reference, Format };

    void startFormat(const std::string& format) {
        phase_ = Phase::Format;
        for (auto& [name, layer] : layers_) {
            layer.nextInput = layer.nextOutput = 0;
            layer.format = LayerFormatSensitivity{};
            layer.format.format = format;
        }
    }
    const std::map<std::string, LayerRecord>& layers() const { return layers_; }

    torch::Tensor enter(const RoundingTag& tag, const torch::Tensor& values) override {
        if (phase_ == Phase::Reference) {
            auto& layer = layers_[tag.layer];
            if (tag.operand == RoundingOperand::Input) layer.inputs.push_back(values.detach());
            // A 2-D weight is [out, in] or [in, out]: its layout is not known here, the
            // input's reduction length is. A conv's weight [Cout, C/groups, k...] has it all.
            if (tag.operand == RoundingOperand::Weight && values.dim() > 2 && layer.weightReduction == 0)
                layer.weightReduction = values.numel() / values.size(0);
            return values;
        }
        if (tag.operand != RoundingOperand::Input) return values;
        auto it = layers_.find(tag.layer);
        if (it == layers_.end() || it->second.nextInput >= it->second.inputs.size()) return values;
        return it->second.inputs[it->second.nextInput++];
    }

    torch::Tensor leave(const RoundingTag& tag, const torch::Tensor& rounded) override {
        if (tag.operand != RoundingOperand::Output) return rounded;
        if (phase_ == Phase::Reference) {
            auto& layer = layers_[tag.layer];
            const size_t index = layer.outputs.size();
            layer.outputs.push_back({rounded.detach(), {}});
            const int64_t reduction = layer.weightReduction > 0 ? layer.weightReduction : layer.inputReduction;
            layer.flops += 2.0 * static_cast<double>(rounded.numel()) * static_cast<double>(reduction);
            layer.weightReduction = layer.inputReduction = 0;
            if (rounded.requires_grad()) {
                auto* outputs = &layer.outputs;  // std::map nodes and this vector stay put
                rounded.register_hook([outputs, index](const torch::Tensor& gradient) {
                    (*outputs)[index].gradient = gradient.detach();
                });
            }
            return rounded;
        }
        auto it = layers_.find(tag.layer);
        if (it == layers_.end() || it->second.nextOutput >= it->second.outputs.size()) return rounded;
        auto& layer = it->second;
        const auto& reference = layer.outputs[layer.nextOutput++];
        if (reference.gradient.defined() && reference.value.sizes() == rounded.sizes()) {
            const auto error = rounded.to(torch::kDouble) - reference.value.to(torch::kDouble);
            const auto gradient = reference.gradient.to(torch::kDouble);
            layer.format.fisher += (gradient.square() * error.square()).sum().item<double>();
            layer.format.lossChange += (gradient * error).sum().item<double>();
        }
        return reference.value;
    }

    void matmulInput(const RoundingTag& tag, const torch::Tensor& values, BlockLayout layout) override {
        if (phase_ != Phase::Reference) return;
        auto& layer = layers_[tag.layer];
        if (layer.inputReduction == 0) layer.inputReduction = reductionLength(values, layout);
    }

    void afterQuantizing(const RoundingTag& tag, bool backward, const FormatQuantizer&,
                         const QuantizationStats& stats) override {
        if (phase_ != Phase::Format || backward || tag.operand == RoundingOperand::Output) return;
        auto it = layers_.find(tag.layer);
        if (it == layers_.end()) return;
        auto& f = it->second.format;
        f.elements += stats.elements;
        f.saturated += stats.saturated;
        f.flushed += stats.underflowed;
    }

private:
    Phase phase_ = Phase::Reference;
    std::map<std::string, LayerRecord> layers_;
};

// Points a trainer's rounding tags at a tap for one pass, and away again.
struct TapAttached {
    const Trainer& trainer;
    TapAttached(const Trainer& t, LayerTap& tap) : trainer(t) { trainer.policy().setRoundingObserver(&tap); }
    ~TapAttached() { trainer.policy().setRoundingObserver(nullptr); }
};

// Puts the global CPU generator back when the pass ends, however it ends.
struct RngRestored {
    torch::Tensor state = captureCpuRng();
    ~RngRestored() { restoreCpuRng(state); }
};

}  // namespace

SensitivityPass::SensitivityPass(std::vector<std::string> formats) : formats_(std::move(formats)) {
    if (formats_.empty()) throw InputError("sensitivity: no format to measure");
    for (const auto& f : formats_) parseSensitivityFormats(f, "sensitivity");
}

SensitivityPass::~SensitivityPass() = default;

SensitivityRecord SensitivityPass::measure(const Trainer& trainer, int64_t step) {
    const auto start = std::chrono::steady_clock::now();
    const RngRestored rng;
    if (!reference_) reference_ = trainer.twin(fp32ShadowConfig(trainer.config()));
    LayerTap tap;
    SensitivityRecord record;
    record.step = step;
    record.formats = formats_;
    {
        reference_->copyStateFrom(trainer);
        const TapAttached attached(*reference_, tap);
        record.loss = reference_->computeGradients(trainer.lastInputs(), trainer.lastTargets());
        for (auto& p : reference_->parameters()) p.mutable_grad().reset();
    }
    // Model order, matmul/conv layers only (a layer with no output at a rounding point
    // does no matmul or conv).
    for (const auto& name : trainer.model().layerNames()) {
        auto it = tap.layers().find(name);
        if (it == tap.layers().end() || it->second.outputs.empty()) continue;
        LayerSensitivity layer;
        layer.layer = name;
        layer.flops = it->second.flops;
        record.layers.push_back(std::move(layer));
    }
    for (const auto& format : formats_) {
        auto& twin = twins_[format];
        if (!twin) {
            RunConfig config = fp32ShadowConfig(trainer.config());
            config.precision.mode = format;
            twin = trainer.twin(config);
        }
        twin->copyStateFrom(trainer);
        restoreCpuRng(rng.state);
        tap.startFormat(format);
        {
            const TapAttached attached(*twin, tap);
            torch::NoGradGuard noGrad;
            twin->model().setTraining(true);
            const auto inputs = trainer.lastInputs().to(twin->device());
            if (twin->model().computesOwnLoss())
                twin->model().forwardLoss(inputs, trainer.lastTargets().to(twin->device()), twin->policy(), nullptr);
            else
                twin->model().forward(inputs, twin->policy(), nullptr);
        }
        for (auto& layer : record.layers) {
            LayerFormatSensitivity measured = tap.layers().at(layer.layer).format;
            measured.score = measured.lossChange * measured.lossChange;
            layer.formats.push_back(measured);
        }
    }
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return record;
}

}  // namespace ampscope
