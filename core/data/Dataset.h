#pragma once
// Dataset: the in-memory training and validation sets a run trains on, built from a
// DataConfig. INTERNAL to core: this header includes torch, so the UI and the CLI
// must not include it (they see core through torch-free headers only).
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
    torch::Tensor targets;  // [N] int64 class ids, or [N, 1] float32 for regression
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

}  // namespace ampscope
