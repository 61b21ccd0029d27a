#include "data/Dataset.h"

#include <algorithm>
#include <filesystem>

#include "common/InputError.h"
#include "common/Text.h"
#include "config/ConfigText.h"
#include "config/ConfigValidation.h"
#include "data/MnistFiles.h"
#include "data/PixelConversion.h"
#include "data/SampleSplits.h"
#include "data/SeedStreams.h"
#include "data/SyntheticData.h"
#include "data/TensorsDataset.h"

namespace ampscope {
namespace {

constexpr int64_t kImageClasses = 10;
// Synthetic sets have no test files, so validation "test" falls back to this hold-out.
constexpr double kSyntheticTestFraction = 0.2;

void checkValidationMode(const DataConfig& config) {
    if (config.validation != "test" && config.validation != "split")
        throw InputError("data.validation: must be \"test\" or \"split\" (got \"" +
                         config.validation + "\")");
    if (config.validation == "split" && !(config.val_fraction > 0 && config.val_fraction < 1))
        throw InputError("data.val_fraction: must be > 0 and < 1 (got " +
                         formatNumber(config.val_fraction, 6) + ")");
    if (config.subset < 0)
        throw InputError("data.subset: must be >= 0 (got " + std::to_string(config.subset) + ")");
}

DataBundle loadImages(const DataConfig& config, uint64_t seed) {
    const bool fashion = config.dataset == "fashion_mnist";
    if (!fashion && config.path.empty())
        throw InputError(
            "data.path: required for dataset mnist_idx (a directory holding "
            "train-images-idx3-ubyte[.gz] and the other IDX files)");
    const bool defaultLocation = config.path.empty();
    const std::string dir = defaultLocation ? kDefaultFashionMnistDir : config.path;
    const std::string hint = defaultLocation
                                 ? "install the dataset-fashion-mnist package or set data.path"
                                 : "check data.path";
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) {
        const bool exists = std::filesystem::exists(dir, error);
        throw InputError(dir + (exists ? ": not a directory; " : ": directory not found; ") + hint);
    }

    const IdxImageSet trainFiles = loadIdxImageSet(dir, "train", kImageClasses, hint);
    Rows train{trainFiles.pixels, trainFiles.labels};
    Rows val;
    std::string valNote;
    if (config.validation == "test") {
        const IdxImageSet testFiles = loadIdxImageSet(dir, "t10k", kImageClasses, hint);
        if (testFiles.pixels.size(1) != train.inputs.size(1) ||
            testFiles.pixels.size(2) != train.inputs.size(2))
            throw InputError(
                testFiles.imagesPath + ": images are " + std::to_string(testFiles.pixels.size(1)) +
                "x" + std::to_string(testFiles.pixels.size(2)) + " but " + trainFiles.imagesPath +
                " has " + std::to_string(train.inputs.size(1)) + "x" +
                std::to_string(train.inputs.size(2)));
        val = {testFiles.pixels, testFiles.labels};
        valNote = "test " + std::to_string(val.size());
    } else {
        valNote = holdOutValidation(train, val, config.val_fraction, seed);
    }
    const std::string subsetNote = applySubset(train, config.subset, seed);

    PixelStats stats;  // mean 0, std 1: plain pixel/255
    if (config.normalize) stats = pixelStats(train.inputs);

    DataBundle bundle;
    bundle.train = {pixelsToFloat(train.inputs, stats), train.targets.contiguous()};
    bundle.val = {pixelsToFloat(val.inputs, stats), val.targets.contiguous()};
    bundle.task = "classification";
    bundle.num_classes = kImageClasses;
    bundle.input_shape = {1, train.inputs.size(1), train.inputs.size(2)};
    bundle.synthetic = false;
    bundle.description =
        std::string(fashion ? "FashionMNIST" : "MNIST-format") + " train " +
        std::to_string(bundle.train.size()) + subsetNote + " / " + valNote + " from " + dir + ", " +
        std::to_string(bundle.input_shape[1]) + "x" + std::to_string(bundle.input_shape[2]) +
        (config.normalize ? normalizedNote(stats) : ", pixels in [0, 1]");
    return bundle;
}

DataBundle loadSynthetic(const DataConfig& config, uint64_t seed) {
    const bool spirals = config.dataset == "spirals";
    if (config.synthetic_samples < 3)
        throw InputError("data.synthetic_samples: must be >= 3 (got " +
                         std::to_string(config.synthetic_samples) + ")");
    const uint64_t dataSeed = deriveSeed(seed, SeedStream::Synthetic);
    const SyntheticSet set = spirals ? makeSpirals(config.synthetic_samples, dataSeed)
                                     : makeTinyGradients(config.synthetic_samples, dataSeed);
    const double fraction =
        config.validation == "split" ? config.val_fraction : kSyntheticTestFraction;
    Split split = holdOut({set.inputs, set.targets}, fraction, seed);
    const std::string subsetNote = applySubset(split.train, config.subset, seed);

    DataBundle bundle;
    bundle.train = {split.train.inputs.contiguous(), split.train.targets.contiguous()};
    bundle.val = {split.val.inputs.contiguous(), split.val.targets.contiguous()};
    bundle.synthetic = true;
    const std::string sizes = "train " + std::to_string(bundle.train.size()) + subsetNote +
                              " / val " + std::to_string(bundle.val.size()) + " (" +
                              formatNumber(fraction * 100, 6) + "% held out)";
    if (spirals) {
        bundle.task = "classification";
        bundle.num_classes = kSpiralClasses;
        bundle.input_shape = {2};
        bundle.description = "spirals: 3 classes in 2-D, angle noise " +
                             formatNumber(kSpiralAngleNoise, 6) + " rad, " + sizes;
    } else {
        bundle.task = "regression";
        bundle.num_classes = 0;
        bundle.input_shape = {kTinyGradientFeatures};
        bundle.description =
            "tiny_gradients: regression 32 -> 1, x ~ N(0,1) * 2^" +
            std::to_string(kTinyGradientInputExponent) + ", y = x W* + N(0,1) * 2^" +
            std::to_string(kTinyGradientNoiseExponent) +
            "; MSE weight gradients ~4e-9, below fp16's 2^-24 ~ 6e-8 (zero without loss "
            "scaling), " + sizes;
    }
    return bundle;
}

}  // namespace

DataBundle loadData(const DataConfig& config, uint64_t seed) {
    checkValidationMode(config);
    if (config.dataset == "fashion_mnist" || config.dataset == "mnist_idx")
        return loadImages(config, seed);
    if (config.dataset == "spirals" || config.dataset == "tiny_gradients")
        return loadSynthetic(config, seed);
    if (config.dataset == "tensors") return loadTensors(config, seed);
    throw InputError("data.dataset: must be one of " + config_text::joined(allowedDatasets()) +
                     " (got \"" + config.dataset + "\")");
}

int64_t modelOutputs(const DataBundle& data) {
    if (data.task == "classification") return data.num_classes;
    const torch::Tensor& targets = data.train.targets;
    if (targets.dim() <= 1) return 1;
    if (targets.dim() > 2) {
        std::string shape;
        for (int64_t d = 1; d < targets.dim(); ++d)
            shape += (d > 1 ? "x" : "") + std::to_string(targets.size(d));
        throw InputError("data.targets: " + shape +
                         " regression values per sample; the built-in models end in a linear "
                         "layer, so store the targets flat as [N, " +
                         std::to_string(targets.numel() / std::max<int64_t>(targets.size(0), 1)) +
                         "]");
    }
    return targets.size(1);
}

}  // namespace ampscope
