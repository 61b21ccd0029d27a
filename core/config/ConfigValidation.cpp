#include "config/ConfigValidation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "common/InputError.h"
#include "common/Text.h"
#include "config/ActivationEstimate.h"
#include "config/ConfigFieldRules.h"
#include "config/ConfigText.h"
#include "probes/SensitivityRecord.h"

namespace ampscope {

const std::vector<std::string>& allowedDatasets() {
    static const std::vector<std::string> values = {"fashion_mnist", "mnist_idx", "spirals",
                                                    "tiny_gradients", "tensors"};
    return values;
}
const std::vector<std::string>& allowedModels() {
    static const std::vector<std::string> values = {"mlp", "simple_cnn", "deep_cnn",
                                                    "transformer", "log_sum", "batchnorm_mlp",
                                                    "mlp_manual_softmax", "mlp_library_softmax",
                                                    "torchscript"};
    return values;
}
const std::vector<std::string>& allowedLosses() {
    static const std::vector<std::string> values = {"auto", "cross_entropy", "mse", "model"};
    return values;
}
const std::vector<std::string>& allowedModes() {
    static const std::vector<std::string> values = {"fp32",  "tf32",      "fp16",
                                                    "bf16",  "fp16-pure", "bf16-pure",
                                                    "fp8",   "mxfp8",     "mxfp4",
                                                    "nvfp4"};
    return values;
}
const std::vector<std::string>& allowedScalerKinds() {
    static const std::vector<std::string> values = {"auto", "dynamic", "static", "off"};
    return values;
}
const std::vector<std::string>& allowedFp8Formats() {
    static const std::vector<std::string> values = {"hybrid", "e4m3"};
    return values;
}
const std::vector<std::string>& allowedFp8Recipes() {
    static const std::vector<std::string> values = {"delayed", "current"};
    return values;
}
const std::vector<std::string>& allowedAmaxComputes() {
    static const std::vector<std::string> values = {"max", "most_recent"};
    return values;
}
const std::vector<std::string>& allowedMxScaleRules() {
    static const std::vector<std::string> values = {"floor", "rceil"};
    return values;
}
const std::vector<std::string>& allowedEmulation() {
    static const std::vector<std::string> values = {"auto", "always"};
    return values;
}
const std::vector<std::string>& allowedOptimizers() {
    static const std::vector<std::string> values = {"sgd", "adam", "adamw"};
    return values;
}
const std::vector<std::string>& allowedFaultKinds() {
    static const std::vector<std::string> values = {"inf_grad",   "nan_grad",         "inf_activation",
                                                    "nan_activation", "scale_loss", "scale_activation",
                                                    "alloc_failure"};
    return values;
}
const std::vector<std::string>& allowedLocateModes() {
    static const std::vector<std::string> values = {"replay", "always", "off"};
    return values;
}
const std::vector<std::string>& allowedMapReferences() {
    static const std::vector<std::string> values = {"fp32", "fp64"};
    return values;
}
const std::vector<std::string>& allowedDevices() {
    static const std::vector<std::string> values = {"auto", "cpu", "cuda"};
    return values;
}
const std::vector<std::string>& allowedValidationModes() {
    static const std::vector<std::string> values = {"test", "split"};
    return values;
}
const std::vector<std::string>& allowedActivations() {
    static const std::vector<std::string> values = {"relu", "gelu", "tanh"};
    return values;
}
const std::vector<std::string>& allowedNorms() {
    static const std::vector<std::string> values = {"auto", "none", "batch", "layer"};
    return values;
}
const std::vector<int64_t>& allowedPatchSizes() {
    static const std::vector<int64_t> values = {1, 2, 4, 7, 14, 28};
    return values;
}

namespace {

using config_text::number;
using config_text::quoted;

// The images every built-in image set yields: 1 x 28 x 28, 10 classes.
constexpr double kImagePixels = 784.0;
constexpr double kClasses = 10.0;
// Past this a model would not fit the memory of the machines AmpScope targets; the
// check exists so an absurd size fails here instead of as a bad_alloc mid-construction.
constexpr double kParameterLimit = 2e9;

const NumberLimits& limitsOf(std::string_view path) {
    return configFieldRule(path).limits.value();
}

std::string indexed(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

// Collects problems in the order the checks run, which follows the fields of RunConfig,
// so the first one is the one a reader of config.json meets first.
class Checker {
public:
    std::vector<FieldProblem> problems;

    void add(const std::string& field, const std::string& message) {
        problems.push_back({field, message});
    }

    void oneOf(const std::string& field, const std::string& value,
               const std::vector<std::string>& allowed) {
        if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return;
        add(field, "must be one of " + config_text::joined(allowed) + " (got " + quoted(value) +
                       ")");
    }

    // The field's limits are its rule's (ConfigFieldRules.h); `field` names the value in
    // the message (a list element: "model.hidden[2]"), `rulePath` the rule when it differs.
    void withinLimits(const std::string& field, int64_t value, std::string_view rulePath = {}) {
        const NumberLimits& limits = limitsOf(rulePath.empty() ? field : rulePath);
        if (limits.contains(static_cast<double>(value))) return;
        add(field, "must be " + limits.text() + " (got " + std::to_string(value) + ")");
    }

    void withinLimits(const std::string& field, double value, std::string_view rulePath = {}) {
        if (!finite(field, value)) return;
        const NumberLimits& limits = limitsOf(rulePath.empty() ? field : rulePath);
        if (limits.contains(value)) return;
        add(field, "must be " + limits.text() + " (got " + number(value) + ")");
    }

    // Every double in the config must be finite: JSON cannot even write inf or nan, so a
    // non-finite value could not be saved into config.json and loaded back.
    bool finite(const std::string& field, double value) {
        if (std::isfinite(value)) return true;
        add(field, "must be a finite number (got " + number(value) + ")");
        return false;
    }

    void parameterGuard(const std::string& field, double parameters) {
        if (parameters <= kParameterLimit) return;
        const double gib = parameters * 4.0 / (1024.0 * 1024.0 * 1024.0);  // fp32 weights
        add(field, "about " + formatNumber(parameters, 3) + " parameters would need " +
                       formatNumber(gib, 3) + " GiB (limit 2e9 parameters)");
    }
};

void checkTop(Checker& check, const RunConfig& config) {
    if (config.schema_version != kConfigSchemaVersion)
        check.add("schema_version", "must be " + std::to_string(kConfigSchemaVersion) +
                                        " (got " + std::to_string(config.schema_version) + ")");
    check.oneOf("device", config.device, allowedDevices());
    check.withinLimits("threads", int64_t{config.threads});
}

// data.dataset "tensors": which tensors of the file make the sets. Whether the file holds
// them is the loader's to say (core/data/TensorsDataset.cpp), like every file check.
void checkTensorsData(Checker& check, const DataConfig& data) {
    if (data.path.empty())
        check.add("data.path", "must name the .safetensors file when data.dataset is tensors "
                               "(got \"\")");
    if (data.inputs.empty())
        check.add("data.inputs", "must name the tensor of training inputs in data.path (got \"\")");
    if (data.targets.empty())
        check.add("data.targets",
                  "must name the tensor of training targets in data.path (got \"\")");
    const bool valInputs = !data.val_inputs.empty(), valTargets = !data.val_targets.empty();
    if (valInputs && !valTargets)
        check.add("data.val_targets", "must name the validation targets when data.val_inputs "
                                      "is set (got \"\")");
    if (valTargets && !valInputs)
        check.add("data.val_inputs", "must name the validation inputs when data.val_targets is "
                                     "set (got \"\")");
    if (data.validation == "test" && !valInputs && !valTargets)
        check.add("data.val_inputs",
                  "validation \"test\" needs the validation pair data.val_inputs and "
                  "data.val_targets; name them, or use validation \"split\" (got \"\")");
    if (data.validation == "split" && (valInputs || valTargets))
        check.add("data.val_inputs",
                  "validation \"split\" holds out data.val_fraction of data.inputs and would "
                  "ignore the validation pair; clear data.val_inputs and data.val_targets, or "
                  "use validation \"test\" (got " + quoted(data.val_inputs) + ")");
}

void checkData(Checker& check, const DataConfig& data) {
    check.oneOf("data.dataset", data.dataset, allowedDatasets());
    if (data.dataset == "mnist_idx" && data.path.empty())
        check.add("data.path", "must name the directory of the IDX files when data.dataset is "
                               "mnist_idx (got \"\")");
    check.oneOf("data.validation", data.validation, allowedValidationModes());
    check.withinLimits("data.val_fraction", data.val_fraction);
    check.withinLimits("data.subset", data.subset);
    check.withinLimits("data.synthetic_samples", data.synthetic_samples);
    if (data.dataset == "tensors") checkTensorsData(check, data);
}

double mlpParameters(const ModelConfig& model) {
    // Weights only, in double: the point is the order of magnitude, and int64 could overflow.
    double total = 0.0, in = kImagePixels;
    for (const int64_t width : model.hidden) {
        total += in * static_cast<double>(width);
        in = static_cast<double>(width);
    }
    return total + in * kClasses;
}

double deepCnnParameters(const ModelConfig& model) {
    double total = 0.0;
    for (const auto& block : model.blocks)
        total += static_cast<double>(block[0]) * static_cast<double>(block[1]) *
                 static_cast<double>(block[2]) * static_cast<double>(block[2]);
    return total;
}

double transformerParameters(const ModelConfig& model) {
    // Per layer: q, k, v, out projections (4 dim^2) and the MLP (2 * ratio * dim^2).
    const double dim = static_cast<double>(model.dim);
    return dim * dim * (4.0 + 2.0 * static_cast<double>(model.mlp_ratio)) *
           static_cast<double>(model.depth);
}

void checkBlocks(Checker& check, const ModelConfig& model) {
    static const char* const names[5] = {"in", "out", "kernel", "stride", "pad"};
    for (std::size_t i = 0; i < model.blocks.size(); ++i) {
        const auto& block = model.blocks[i];
        const std::string field = indexed("model.blocks", i);
        for (int j = 0; j < 5; ++j) {
            const int64_t low = j == 4 ? 0 : 1;
            if (block[j] < low || block[j] > kMaxConfigWidth)
                check.add(field, std::string(names[j]) + " must be in [" + std::to_string(low) +
                                     ", " + std::to_string(kMaxConfigWidth) + "] (got " +
                                     std::to_string(block[j]) + ")");
        }
        // Channels must chain, and the first block sees the one-channel image.
        if (i == 0 && block[0] != 1)
            check.add(field, "in must be 1 for the first block (the images have one channel) "
                             "(got " + std::to_string(block[0]) + ")");
        if (i > 0 && block[0] != model.blocks[i - 1][1])
            check.add(field, "in must equal the previous block's out (" +
                                 std::to_string(model.blocks[i - 1][1]) + ") (got " +
                                 std::to_string(block[0]) + ")");
    }
}

// The fields of a user's TorchScript model (the file itself is checked when loaded).
void checkScriptModel(Checker& check, const ModelConfig& model) {
    if (model.name == "torchscript" && model.path.empty())
        check.add("model.path", "the torchscript model needs the path of its file (a .pt "
                                "saved from torch.jit.trace or torch.jit.script)");
    check.withinLimits("model.file_bytes", model.file_bytes);
    const bool hex = std::all_of(model.sha256.begin(), model.sha256.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
    if (!model.sha256.empty() && (model.sha256.size() != 64 || !hex))
        check.add("model.sha256", "must be 64 lowercase hex digits (got " + quoted(model.sha256) + ")");
    for (std::size_t i = 0; i < model.probe_modules.size(); ++i)
        if (model.probe_modules[i].empty())
            check.add(indexed("model.probe_modules", i), "must be a module name (got \"\")");
    check.withinLimits("model.probe_depth", model.probe_depth);
    if (!model.probe_modules.empty() && model.probe_depth > 0)
        check.add("model.probe_depth", "use model.probe_modules or model.probe_depth, not both");
}

void checkModel(Checker& check, const ModelConfig& model) {
    check.oneOf("model.name", model.name, allowedModels());

    if (model.hidden.size() > 64)
        check.add("model.hidden", "must have at most 64 entries (got " +
                                      std::to_string(model.hidden.size()) + ")");
    for (std::size_t i = 0; i < model.hidden.size(); ++i)
        check.withinLimits(indexed("model.hidden", i), model.hidden[i], "model.hidden");
    if (model.name == "mlp") check.parameterGuard("model.hidden", mlpParameters(model));

    check.oneOf("model.activation", model.activation, allowedActivations());
    check.oneOf("model.norm", model.norm, allowedNorms());

    checkBlocks(check, model);
    if (model.name == "deep_cnn") check.parameterGuard("model.blocks", deepCnnParameters(model));

    const auto& patches = allowedPatchSizes();
    if (std::find(patches.begin(), patches.end(), model.patch) == patches.end()) {
        std::vector<std::string> texts;
        for (const int64_t patch : patches) texts.push_back(std::to_string(patch));
        check.add("model.patch", "must be one of " + config_text::joined(texts) +
                                     " (a divisor of 28) (got " + std::to_string(model.patch) +
                                     ")");
    }
    check.withinLimits("model.dim", model.dim);
    if (model.name == "transformer")
        check.parameterGuard("model.dim", transformerParameters(model));
    check.withinLimits("model.heads", model.heads);
    if (model.dim >= 1 && model.heads >= 1 && model.dim % model.heads != 0)
        check.add("model.heads", "must divide model.dim (" + std::to_string(model.dim) +
                                     ") (got " + std::to_string(model.heads) + ")");
    check.withinLimits("model.depth", model.depth);
    check.withinLimits("model.mlp_ratio", model.mlp_ratio);
    checkScriptModel(check, model);
}

void checkPrecision(Checker& check, const PrecisionConfig& precision) {
    check.oneOf("precision.mode", precision.mode, allowedModes());
    const ScalerConfig& scaler = precision.scaler;
    check.oneOf("precision.scaler.kind", scaler.kind, allowedScalerKinds());
    check.withinLimits("precision.scaler.init_scale", scaler.init_scale);
    check.withinLimits("precision.scaler.growth_factor", scaler.growth_factor);
    check.withinLimits("precision.scaler.backoff_factor", scaler.backoff_factor);
    check.withinLimits("precision.scaler.growth_interval", scaler.growth_interval);
    for (std::size_t i = 0; i < precision.keep_fp32.size(); ++i)
        if (precision.keep_fp32[i].empty())
            check.add(indexed("precision.keep_fp32", i), "must be a layer name (got \"\")");
    check.oneOf("precision.emulate", precision.emulate, allowedEmulation());
    const Fp8Config& fp8 = precision.fp8;
    check.oneOf("precision.fp8.format", fp8.format, allowedFp8Formats());
    check.oneOf("precision.fp8.recipe", fp8.recipe, allowedFp8Recipes());
    check.withinLimits("precision.fp8.amax_history_len", fp8.amax_history_len);
    check.oneOf("precision.fp8.amax_compute", fp8.amax_compute, allowedAmaxComputes());
    check.withinLimits("precision.fp8.margin", fp8.margin);
    check.oneOf("precision.mx.scale_rule", precision.mx.scale_rule, allowedMxScaleRules());
}

void checkOptim(Checker& check, const OptimConfig& optim) {
    check.oneOf("optim.name", optim.name, allowedOptimizers());
    check.withinLimits("optim.lr", optim.lr);
    check.withinLimits("optim.momentum", optim.momentum);
    check.withinLimits("optim.weight_decay", optim.weight_decay);
    check.withinLimits("optim.beta1", optim.beta1);
    check.withinLimits("optim.beta2", optim.beta2);
    check.withinLimits("optim.eps", optim.eps);
    check.withinLimits("optim.clip_norm", optim.clip_norm);
}

void checkTrain(Checker& check, const TrainConfig& train) {
    check.withinLimits("train.epochs", train.epochs);
    check.withinLimits("train.max_steps", train.max_steps);
    check.withinLimits("train.batch_size", train.batch_size);
    check.withinLimits("train.eval_batch_size", train.eval_batch_size);
    check.oneOf("train.loss", train.loss, allowedLosses());
}

// The sensitivity pass's formats: each one it can score (fp32 too, the pass's own check:
// it scores 0), none twice, and at least one while the pass is on.
void checkSensitivityFormats(Checker& check, const ProbeConfig& probes) {
    std::vector<std::string> allowed = sensitivityFormats();
    allowed.push_back("fp32");
    const auto& formats = probes.sensitivity_formats;
    for (std::size_t i = 0; i < formats.size(); ++i) {
        check.oneOf(indexed("probes.sensitivity_formats", i), formats[i], allowed);
        if (std::find(formats.begin(), formats.begin() + static_cast<std::ptrdiff_t>(i), formats[i]) !=
            formats.begin() + static_cast<std::ptrdiff_t>(i))
            check.add(indexed("probes.sensitivity_formats", i), "is listed twice (got " + quoted(formats[i]) + ")");
    }
    if (formats.empty() && probes.sensitivity_every > 0)
        check.add("probes.sensitivity_formats", "must name at least one format while probes.sensitivity_every is on");
}

void checkProbes(Checker& check, const ProbeConfig& probes) {
    check.withinLimits("probes.every", probes.every);
    check.withinLimits("probes.shadow_every", probes.shadow_every);
    check.withinLimits("probes.format_sweep_every", probes.format_sweep_every);
    check.withinLimits("probes.sensitivity_every", probes.sensitivity_every);
    checkSensitivityFormats(check, probes);
    check.withinLimits("probes.ring_steps", probes.ring_steps);
    check.oneOf("probes.locate_nonfinite", probes.locate_nonfinite, allowedLocateModes());
    for (std::size_t i = 0; i < probes.precision_map_steps.size(); ++i)
        check.withinLimits(indexed("probes.precision_map_steps", i), probes.precision_map_steps[i],
                           "probes.precision_map_steps");
    check.oneOf("probes.precision_map_reference", probes.precision_map_reference, allowedMapReferences());
    check.withinLimits("probes.pause_overflow_above", probes.pause_overflow_above);
    check.withinLimits("probes.pause_scale_below", probes.pause_scale_below);
}

// Across sections: the batch times the model's layer outputs must fit the machine (or the
// memory AMPSCOPE_MEMORY_BYTES allows).
void checkActivationMemory(Checker& check, const RunConfig& config) {
    if (config.train.batch_size < 1) return;  // reported by checkTrain
    const MemoryLimit limit = memoryLimit();
    if (!limit.problem.empty()) {
        check.add(kMemoryLimitVariable, limit.problem);
        return;
    }
    const double bytes = activationBytesPerStep(config);
    if (limit.bytes <= 0.0 || bytes <= limit.bytes) return;
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    check.add("train.batch_size",
              std::to_string(config.train.batch_size) + " samples of this " + config.model.name +
                  " would hold at least " + formatNumber(bytes / kGiB, 3) + " GiB of layer outputs in one step; " +
                  (limit.fromEnvironment ? std::string(kMemoryLimitVariable) + " allows " : "this machine has ") +
                  formatNumber(limit.bytes / kGiB, 3) + " GiB of memory");
}

void checkLockstep(Checker& check, const LockstepConfig& lockstep) {
    // "" is off; anything else names the mode of the second model.
    if (!lockstep.mode.empty()) check.oneOf("lockstep.mode", lockstep.mode, allowedModes());
}

void checkFaults(Checker& check, const std::vector<FaultConfig>& faults) {
    for (std::size_t i = 0; i < faults.size(); ++i) {
        const FaultConfig& fault = faults[i];
        const std::string prefix = indexed("faults", i) + ".";
        check.withinLimits(prefix + "step", fault.step, "faults.step");
        check.oneOf(prefix + "kind", fault.kind, allowedFaultKinds());
        const bool scalesLoss = fault.kind == "scale_loss";
        if (!scalesLoss && fault.layer.empty())
            check.add(prefix + "layer", "must name a layer for kind " + quoted(fault.kind) +
                                            " (got \"\")");
        const bool scales = scalesLoss || fault.kind == "scale_activation";
        if (check.finite(prefix + "factor", fault.factor) && scales && fault.factor == 0.0)
            check.add(prefix + "factor", "must be a finite non-zero number for kind " + quoted(fault.kind) +
                                             " (got 0)");
    }
}

}  // namespace

std::vector<FieldProblem> validateConfig(const RunConfig& config) {
    Checker check;
    checkTop(check, config);
    checkData(check, config.data);
    checkModel(check, config.model);
    checkPrecision(check, config.precision);
    checkOptim(check, config.optim);
    checkTrain(check, config.train);
    checkProbes(check, config.probes);
    checkLockstep(check, config.lockstep);
    checkFaults(check, config.faults);
    if (config.train.loss == "model" && config.model.name != "torchscript")
        check.add("train.loss", "\"model\" is for a torchscript model whose forward returns the "
                                "loss (model.name is " + quoted(config.model.name) + ")");
    if (check.problems.empty()) checkActivationMemory(check, config);
    return check.problems;
}

void throwIfInvalid(const RunConfig& config) {
    const auto problems = validateConfig(config);
    if (!problems.empty()) throw InputError(problems.front().text());
}

}  // namespace ampscope
