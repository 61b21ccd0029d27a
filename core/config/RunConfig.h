#pragma once
// RunConfig: everything that defines a training run, as plain values.
// It is what config.json holds (schema_version 1), what the UI edits and what
// the engine is started with. Defaults here are the defaults users get; the
// field names are the JSON keys (see ConfigJson.h). No torch, no Qt.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ampscope {

inline constexpr int kConfigSchemaVersion = 1;

struct DataConfig {
    // fashion_mnist | mnist_idx | spirals | tiny_gradients | tensors
    std::string dataset = "fashion_mnist";
    // Directory holding the four MNIST-format IDX files (gz or raw). Empty means
    // the Debian dataset-fashion-mnist location for fashion_mnist. For tensors: the
    // .safetensors file (required).
    std::string path;
    // "test": validate on the test files; "split": hold out val_fraction of train.
    std::string validation = "test";
    double val_fraction = 0.1;
    int64_t subset = 0;           // 0 = all training samples, else the first N after shuffling
    bool normalize = true;        // image sets: (x/255 - mean) / std of the training images
    int64_t synthetic_samples = 4096;  // size of spirals / tiny_gradients sets
    // tensors: names of tensors in the file data.path. inputs and targets are the
    // training pair (required); val_inputs and val_targets the validation pair, both or
    // neither (validation "test" needs them, "split" holds val_fraction out instead).
    std::string inputs;
    std::string targets;
    std::string val_inputs;
    std::string val_targets;
};

struct ModelConfig {
    // mlp | simple_cnn | deep_cnn | transformer | log_sum | batchnorm_mlp |
    // mlp_manual_softmax | mlp_library_softmax (the last four serve the teaching scenarios)
    std::string name = "simple_cnn";
    std::vector<int64_t> hidden = {256, 128};  // mlp hidden sizes
    std::string activation = "relu";           // relu | gelu | tanh
    std::string norm = "auto";  // auto | none | batch | layer (auto: batch for deep_cnn, layer for transformer)
    // deep_cnn blocks: [in, out, kernel, stride, pad]; empty = the built-in 14-block list (DeepCnnBlocks.h).
    std::vector<std::array<int64_t, 5>> blocks;
    // transformer over image patches
    int64_t patch = 7;
    int64_t dim = 64;
    int64_t heads = 4;
    int64_t depth = 2;
    int64_t mlp_ratio = 2;
    // torchscript: the user's model file (relative paths resolve against the config
    // file's folder; a run's config.json holds the absolute path), and what the run
    // found there: its size and SHA-256. A sha256 given in a config must match the file.
    std::string path;
    int64_t file_bytes = 0;
    std::string sha256;
    // Which submodules are probed layers: qualified names, or every module at one depth
    // (1 = the model's children); neither: the modules that hold parameters.
    std::vector<std::string> probe_modules;
    int64_t probe_depth = 0;
};

struct ScalerConfig {
    // auto: dynamic for fp16 and off for every other mode (bf16 needs no scaler,
    // and pure fp16 gradients are refused by the scaler as PyTorch refuses them).
    std::string kind = "auto";  // auto | dynamic | static | off
    double init_scale = 65536.0;   // 2^16, as torch.amp.GradScaler
    double growth_factor = 2.0;
    double backoff_factor = 0.5;
    int64_t growth_interval = 2000;
};

// Per-tensor fp8 (mode fp8), as Transformer Engine's recipes.
struct Fp8Config {
    // hybrid: e4m3 forward operands, e5m2 for the gradient at each op's output (more
    // range, as gradients need); e4m3: e4m3 for both.
    std::string format = "hybrid";    // hybrid | e4m3
    // delayed: the scale from an amax history of earlier steps (DelayedScaling);
    // current: from the tensor's own amax.
    std::string recipe = "delayed";   // delayed | current
    int64_t amax_history_len = 1024;  // delayed: amaxes kept per rounding point
    std::string amax_compute = "max"; // delayed: max | most_recent of the history
    int64_t margin = 0;               // scale = max_finite / amax / 2^margin
};

// MX block formats (mxfp8, mxfp4): the rule for each block's e8m0 scale.
struct MxConfig {
    std::string scale_rule = "floor";  // floor (the MX specification's) | rceil
};

struct Nvfp4Config {
    // Stochastic rounding of the output gradients' elements (the NVFP4 recipe does it
    // for gradients); drawn from a generator seeded from the run's seed.
    bool stochastic_gradients = false;
};

struct PrecisionConfig {
    // fp32 | tf32 | fp16 | bf16 | fp16-pure | bf16-pure | fp8 | mxfp8 | mxfp4 | nvfp4
    std::string mode = "fp32";
    ScalerConfig scaler;
    // Layer names that run in fp32 even under autocast/emulation (the usual fix for an op that overflows in fp16).
    std::vector<std::string> keep_fp32;
    // auto: real wherever the device has the format (CUDA), emulated where not (tf32,
    // fp16 and fp16-pure on CPU). always: tf32, fp16 and fp16-pure are emulated on CUDA
    // too, so that emulation can be compared with the real thing on the same GPU.
    std::string emulate = "auto";  // auto | always
    Fp8Config fp8;      // mode fp8
    MxConfig mx;        // modes mxfp8, mxfp4
    Nvfp4Config nvfp4;  // mode nvfp4
};

struct OptimConfig {
    std::string name = "adam";  // sgd | adam | adamw
    double lr = 1e-3;
    double momentum = 0.9;      // sgd only
    double weight_decay = 0.0;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double clip_norm = 0.0;      // global-norm clipping; 0 = off
    bool clip_after_unscale = true;  // false clips the scaled gradients (the common pitfall)
};

struct TrainConfig {
    int64_t epochs = 2;
    int64_t max_steps = 0;  // 0 = no limit beyond epochs
    int64_t batch_size = 128;
    int64_t eval_batch_size = 1000;
    // auto: cross_entropy for class targets, mse for float targets (log_sum: its own);
    // cross_entropy | mse | model (the model's forward takes (inputs, targets) and
    // returns the loss).
    std::string loss = "auto";
};

struct ProbeConfig {
    int64_t every = 50;  // histogram/underflow probes cadence in steps; 0 = off
    int64_t shadow_every = 0;  // fp32 shadow cadence; 0 = off
    // Format sweep cadence in steps; 0 = off. A sweep step is a probe step that is a
    // multiple of this (with probes.every 50: steps 500, 1000, ...; a value that is no
    // multiple of `every` sweeps every lcm of the two). Sparser than `every`: one sweep
    // adds ~86 ms to a simple_cnn step at batch 128 on 2 CPU cores (1.1 fp32 steps, 1.8
    // bf16 steps), so every 500 steps under 0.5 % of training (docs/guide/performance.md); a two-epoch
    // FashionMNIST run (938 steps) sweeps once. A run with no sweep step by its last
    // probe step sweeps there (a one-epoch run of 469 steps: at step 450).
    int64_t format_sweep_every = 500;
    // Sensitivity cadence in steps; 0 = off (the default). On steps that are a multiple
    // of this (whatever probes.every is), the sensitivity pass (engine/SensitivityPass.h)
    // scores what quantizing each matmul/conv layer alone in each of sensitivity_formats
    // costs the loss of that step's batch (the `sensitivity` record). It costs about one fp32 step
    // plus one forward per format (docs/guide/sensitivity-and-prescription.md); the
    // training itself is unchanged by it.
    int64_t sensitivity_every = 0;
    // The formats scored (precision modes among sensitivityFormats()), in this order.
    std::vector<std::string> sensitivity_formats{"fp8", "mxfp8", "mxfp4", "nvfp4"};
    int64_t ring_steps = 16;   // frames kept before a non-finite event
    // Steps whose precision map is taken: the step run a second time from the same state
    // in the run's mode and once in the reference, every op's output compared (the
    // precision_map record). Each costs a few steps' time (docs/guide/performance.md, the precision map's cost).
    std::vector<int64_t> precision_map_steps;
    std::string precision_map_reference = "fp32";  // fp32 | fp64 (a model that runs in float64)
    // Where the run's first NaN/Inf is located (allowedLocateModes()):
    //   replay  every step only reads what it computes anyway (the loss, the scaler's
    //           found-inf, the gradient norm); a step that turns out non-finite is run
    //           again with every layer checked, so clean steps pay nothing;
    //   always  every layer's output and incoming gradient checked on every step;
    //   off     no locating (to measure what locating costs).
    // Files written when this was a boolean still load: true meant "always".
    std::string locate_nonfinite = "replay";
    // Watchpoints: pause the engine (the user resumes) when they fire.
    bool pause_on_nonfinite = false;
    double pause_overflow_above = 0.0;  // fraction of a layer's gradient overflowing fp16; 0 = off
    double pause_scale_below = 0.0;     // loss scale under this; 0 = off
};

struct FaultConfig {
    int64_t step = 0;
    // inf_grad | nan_grad | inf_activation | nan_activation | scale_loss | scale_activation
    // | alloc_failure (alloc_failure: an allocation fails in the layer's forward, as when
    // memory runs out; scale_activation: the layer's whole forward output times factor, a
    // sudden spike such as the one that catches fp8 delayed scaling out)
    std::string kind;
    std::string layer;
    double factor = 1.0;  // scale_loss and scale_activation
};

// Lock-step A/B: a second model trained in `mode` next to the run, on the same
// seed, initial weights and batches. "" = off.
struct LockstepConfig {
    std::string mode;  // "" | fp32 | tf32 | fp16 | bf16 | fp16-pure | bf16-pure
};

struct RunConfig {
    int schema_version = kConfigSchemaVersion;
    std::string name;  // free text; defaults to "<model>-<mode>" when empty
    uint64_t seed = 0;
    std::string device = "auto";  // auto | cpu | cuda
    int threads = 0;              // 0 = all cores
    DataConfig data;
    ModelConfig model;
    PrecisionConfig precision;
    OptimConfig optim;
    TrainConfig train;
    ProbeConfig probes;
    LockstepConfig lockstep;
    std::vector<FaultConfig> faults;
};

}  // namespace ampscope
