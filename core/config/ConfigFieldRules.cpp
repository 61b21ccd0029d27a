#include "config/ConfigFieldRules.h"

#include <stdexcept>

#include "config/ConfigText.h"

namespace ampscope {

namespace {

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

NumberLimits integers(double low, double high = kNoLimit) {
    return {true, low, LimitBound::Closed, high, LimitBound::Closed};
}

NumberLimits reals(double low, LimitBound lowBound, double high = kNoLimit,
                   LimitBound highBound = LimitBound::Closed) {
    return {false, low, lowBound, high, highBound};
}

const auto kOpen = LimitBound::Open;
const auto kClosed = LimitBound::Closed;

std::string written(double value, bool integer) {
    return integer ? std::to_string(static_cast<long long>(value)) : config_text::number(value);
}

}  // namespace

bool NumberLimits::contains(double value) const {
    const bool aboveLow = lowBound == LimitBound::Closed ? value >= low : value > low;
    const bool belowHigh = highBound == LimitBound::Closed ? value <= high : value < high;
    return aboveLow && belowHigh;
}

std::string NumberLimits::text() const {
    const bool hasLow = low != -kNoLimit, hasHigh = high != kNoLimit;
    if (hasLow && hasHigh)
        return std::string("in ") + (lowBound == LimitBound::Closed ? "[" : "(") + written(low, integer) +
               ", " + written(high, integer) + (highBound == LimitBound::Closed ? "]" : ")");
    if (hasLow) return (lowBound == LimitBound::Closed ? ">= " : "> ") + written(low, integer);
    if (hasHigh) return (highBound == LimitBound::Closed ? "<= " : "< ") + written(high, integer);
    return "any number";
}

const std::vector<ConfigFieldRule>& configFieldRules() {
    static const std::vector<ConfigFieldRule> rules = {
        {"name", "free text; empty means <model>-<mode>", {}},
        {"seed", "initial weights, shuffling and synthetic data (0 .. 2^64-1)", {}},
        {"device", "auto takes CUDA when this LibTorch sees a GPU, else the CPU", {}},
        {"threads", "CPU threads for LibTorch; 0 = all cores", integers(0, 1024)},

        {"data.dataset",
         "fashion_mnist and mnist_idx read IDX files; tensors reads your own samples from a "
         ".safetensors file (the tensors named by data.inputs and data.targets in the config); "
         "spirals and tiny_gradients are generated",
         {}},
        {"data.path",
         "the directory holding the four MNIST-format IDX files (.gz or raw), empty meaning the "
         "Debian location for fashion_mnist; for tensors, the .safetensors file",
         {}},
        {"data.val_fraction", "the share of the training set held out when data.validation is split",
         reals(0.0, kOpen, 0.5, kClosed)},
        {"data.subset", "train on the first N samples after shuffling; 0 = all", integers(0)},
        {"data.synthetic_samples", "size of the spirals / tiny_gradients sets", integers(16, 10000000)},

        {"model.name",
         "the layer list probes look between; torchscript trains your own model from a "
         "TorchScript file",
         {}},
        {"model.hidden", "the mlp's hidden layer widths", integers(1, kMaxConfigWidth)},
        {"model.dim", "the transformer's width", integers(1)},
        {"model.heads", "the transformer's attention heads (they divide model.dim)", integers(1)},
        {"model.depth", "the transformer's blocks", integers(1, 64)},
        {"model.mlp_ratio", "the transformer's MLP width as a multiple of model.dim", integers(1, 16)},
        {"model.path",
         "your TorchScript file (torch.jit.trace or torch.jit.script, then .save()); loading it "
         "runs the code inside it, so pick only models you trust",
         {}},
        {"model.file_bytes", "the size of the model file a run used, as its config.json records it",
         integers(0)},
        {"model.probe_modules",
         "qualified module names to probe as layers, comma separated (e.g. blocks.0, blocks.1); "
         "empty: the modules that hold parameters of their own",
         {}},
        {"model.probe_depth", "probe every module at this depth (1 = the model's children); 0 = off",
         integers(0, 64)},

        {"precision.mode",
         "fp32, tf32, fp16 / bf16 autocast with fp32 master weights, pure fp16 / bf16, or the "
         "EMULATED low-precision formats fp8, mxfp8, mxfp4, nvfp4",
         {}},
        {"precision.scaler.kind",
         "auto = dynamic for fp16, off otherwise; static keeps the initial scale; off runs "
         "without one",
         {}},
        // Stored as a float, as in torch.amp.GradScaler: above FLT_MAX it would be inf.
        {"precision.scaler.init_scale", "65536 = 2^16, as torch.amp.GradScaler",
         reals(0.0, kOpen, 3.4e38, kClosed)},
        {"precision.scaler.growth_factor", "multiplies the scale after growth_interval clean steps",
         reals(1.0, kOpen)},
        {"precision.scaler.backoff_factor", "multiplies the scale when a gradient is inf/NaN",
         reals(0.0, kOpen, 1.0, kOpen)},
        {"precision.scaler.growth_interval", "clean steps before the scale grows", integers(1)},
        {"precision.keep_fp32",
         "layers that run in fp32 even under autocast or emulation, e.g. loss, fc2", {}},
        {"precision.fp8.format",
         "hybrid = e4m3 forward operands, e5m2 for the gradients (more range); e4m3 = e4m3 for "
         "both",
         {}},
        {"precision.fp8.recipe",
         "delayed = each tensor's scale from the amax history of earlier steps; current = from "
         "the tensor's own amax",
         {}},
        // Transformer Engine's default history is 1024; a million floats per rounding point
        // is already more memory than any model here has points worth.
        {"precision.fp8.amax_history_len", "amaxes kept per rounding point for delayed scaling",
         integers(1, 1 << 20)},
        {"precision.fp8.amax_compute",
         "max = the largest amax of the history; most_recent = the last one", {}},
        // 2^-margin past 2^64 would push every scale below fp8's smallest subnormal.
        {"precision.fp8.margin", "scale = max finite / amax / 2^margin", integers(0, 64)},
        {"precision.mx.scale_rule",
         "floor = the MX specification's 2^(floor(log2 amax) - emax); rceil = the smallest power "
         "of two that saturates nothing",
         {}},
        {"precision.nvfp4.stochastic_gradients",
         "round the output gradients' e2m1 elements stochastically, as the NVFP4 training recipe "
         "does (seeded from the run's seed)",
         {}},

        {"optim.name", "sgd (with momentum), adam or adamw", {}},
        {"optim.lr", "the learning rate", reals(0.0, kOpen, 10.0, kClosed)},
        {"optim.momentum", "sgd's momentum", reals(0.0, kClosed, 1.0, kOpen)},
        {"optim.weight_decay", "the optimizer's weight decay", reals(0.0, kClosed, 1.0, kClosed)},
        {"optim.beta1", "adam's decay of the gradient average", reals(0.0, kClosed, 1.0, kOpen)},
        {"optim.beta2", "adam's decay of the squared-gradient average", reals(0.0, kClosed, 1.0, kOpen)},
        {"optim.eps", "adam's term added to the denominator", reals(0.0, kOpen)},
        {"optim.clip_norm", "global gradient-norm clipping; 0 = off", reals(0.0, kClosed)},
        {"optim.clip_after_unscale",
         "off clips the *scaled* gradients, the pitfall that makes clipping far too strong under "
         "a loss scaler",
         {}},

        {"train.epochs", "passes over the training set", integers(1, 100000)},
        {"train.max_steps", "stop after this many steps; 0 = no limit beyond epochs", integers(0)},
        {"train.batch_size", "samples per step", integers(1, kMaxConfigWidth)},
        {"train.eval_batch_size", "samples per evaluation batch", integers(1, kMaxConfigWidth)},

        {"probes.every", "histogram/underflow probe cadence in steps; 0 = off", integers(0)},
        {"probes.shadow_every", "fp32 shadow cadence in steps; 0 = off", integers(0)},
        {"probes.format_sweep_every", "format sweep cadence in steps; 0 = off", integers(0)},
        {"probes.sensitivity_every",
         "sensitivity cadence in steps (each matmul/conv layer's loss cost per format); 0 = off",
         integers(0)},
        {"probes.sensitivity_formats", "the formats the sensitivity pass scores: fp8, mxfp8, mxfp4, nvfp4",
         {}},
        {"probes.ring_steps", "steps of layer statistics kept before a non-finite event",
         integers(1, 4096)},
        {"probes.locate_nonfinite",
         "replay = a step that goes non-finite is run again with every layer checked (clean steps "
         "pay nothing); always = every layer checked on every step; off = not located",
         {}},
        {"probes.precision_map_steps",
         "steps whose every op is compared with a rerun in the reference precision", integers(1)},
        {"probes.precision_map_reference", "the precision map's reference: fp32 or fp64", {}},
        {"probes.pause_overflow_above",
         "pause when this fraction of a layer's gradient overflows fp16; 0 = off",
         reals(0.0, kClosed, 1.0, kClosed)},
        {"probes.pause_scale_below", "pause when the loss scale falls under this; 0 = off",
         reals(0.0, kClosed)},

        {"faults.step", "the step a fault fires at", integers(0)},
    };
    return rules;
}

const ConfigFieldRule& configFieldRule(std::string_view path) {
    for (const ConfigFieldRule& rule : configFieldRules())
        if (rule.path == path) return rule;
    throw std::out_of_range("no config field rule for \"" + std::string(path) + "\"");
}

std::string configFieldHelp(std::string_view path) {
    const ConfigFieldRule& rule = configFieldRule(path);
    std::string text = std::string(rule.path) + ": " + std::string(rule.help);
    if (rule.limits) text += " (" + rule.limits->text() + ")";
    return text;
}

}  // namespace ampscope
