#pragma once
// INTERNAL (includes torch). Dataset: the in-memory training and validation sets a run
// trains on, built from a DataConfig.
//
// Contract of loadData(config, seed):
//  - fashion_mnist: the four IDX files from config.path, or from
//    /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist) when empty.
//    mnist_idx: the same files from config.path, which is required.
//    Images become float32 [N, 1, H, W] in [0, 1]; with config.normalize they are then
//    standardised with the mean/std of the final training images (after split and
//    subset, so validation never leaks into the statistics). Labels are int64 in 0..9.
//  - validation "test": val is the test (t10k) files. "split": the training files are
//    shuffled and round(val_fraction * N) of them are held out as val.
//  - subset > 0: the first `subset` training samples after a seeded shuffle; val is
//    unchanged.
//  - spirals: 3-class 2-D spirals; tiny_gradients: a regression whose fp16 weight
//    gradients underflow (see SyntheticData.h). They have no test files, so
//    validation "test" holds out 20% of config.synthetic_samples, "split" val_fraction.
//  - tensors: the user's own samples from the safetensors file config.path (required;
//    see SafetensorsFile.h for what a file must be). config.inputs and config.targets
//    name the training pair; config.val_inputs and config.val_targets the validation
//    pair, both or neither. Validation "test" takes val from that pair and needs it
//    (InputError naming data.val_inputs without it); "split" holds out val_fraction of the
//    training pair with the shuffle the image sets use (SampleSplits.h), and refuses a
//    named val pair it would ignore. Only the named tensors are read.
//    Inputs: F32, F16 or BF16 become float32 with their values as they are (normalize
//    does not touch them: they are already what the user wants the model to see); U8
//    follow the image rule exactly: /255, then with config.normalize standardised with the
//    mean/std of the final training inputs. [N] inputs become [N, 1] (one feature each);
//    input_shape is the rest of the shape after N.
//    Targets: I64 or I32 are class ids ([N] or [N, 1]; int64 [N]; >= 0; num_classes is
//    the largest id + 1 over train and val, at most 65536). F32, F16 or BF16 make a
//    regression (task "regression", float32 [N, ...] with the file's shape kept; [N]
//    becomes [N, 1], one value per sample, as the models' outputs are [B, 1]).
//    Refused with an InputError naming the file and the field: a name the file does not
//    hold (listing those it does), a 0-dim tensor, 0 samples, other dtypes, inputs and
//    targets of different sample counts, a val pair whose per-sample shape or kind differs
//    from the training pair's.
//  - Everything random is drawn from private generators derived from `seed`: the same
//    config and seed give bit-identical sets, and the global torch generator is never
//    touched.
//  - Bad paths, bad files and bad values throw ampscope::InputError naming the file or
//    the field ("data.path: ...").
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config/RunConfig.h"

namespace ampscope {

struct TensorDataset {
    torch::Tensor inputs;   // [N, ...] float32, contiguous
    torch::Tensor targets;  // [N] int64 class ids, or [N, K...] float32 for regression
    int64_t size() const { return inputs.defined() ? inputs.size(0) : 0; }
};

struct DataBundle {
    TensorDataset train;
    TensorDataset val;
    std::string task;                  // "classification" | "regression"
    int64_t num_classes = 0;           // 0 for regression
    std::vector<int64_t> input_shape;  // per sample, e.g. {1, 28, 28} or {2}
    std::string description;           // one line, for logs, the UI and reports
    bool synthetic = false;
};

inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

DataBundle loadData(const DataConfig& config, uint64_t seed);

// The outputs a built-in model needs for `data`: num_classes for classification; for a
// regression the values per sample of its [N] / [N, K] targets (1 / K). Regression
// targets with more dimensions per sample throw InputError naming data.targets: the
// built-in models end in a linear layer and predict a flat vector.
int64_t modelOutputs(const DataBundle& data);

}  // namespace ampscope
