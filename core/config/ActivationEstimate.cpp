#include "config/ActivationEstimate.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "models/DeepCnnBlocks.h"

namespace ampscope {
namespace {

// The built-in image sets are 1 x 28 x 28 with 10 classes; the synthetic sets are
// feature vectors (spirals: 2 features, 2 classes; tiny_gradients: 32 features, 1 output).
constexpr double kImageSide = 28.0;
constexpr double kClasses = 10.0;

bool imageSet(const DataConfig& data) {
    return data.dataset == "fashion_mnist" || data.dataset == "mnist_idx";
}

double inputFeatures(const DataConfig& data) {
    if (imageSet(data)) return kImageSide * kImageSide;
    if (data.dataset == "spirals") return 2.0;
    if (data.dataset == "tiny_gradients") return 32.0;
    return 0.0;
}

double outputs(const DataConfig& data) {
    if (imageSet(data)) return kClasses;
    if (data.dataset == "spirals") return 2.0;
    return 1.0;
}

bool normed(const ModelConfig& model, const char* autoMeans) {
    const std::string norm = model.norm == "auto" ? autoMeans : model.norm;
    return norm != "none";
}

double mlpElements(const RunConfig& config) {
    const bool norm = normed(config.model, "none");
    double total = inputFeatures(config.data);
    for (const int64_t width : config.model.hidden)
        total += static_cast<double>(width) * (norm ? 3.0 : 2.0);
    return total + outputs(config.data);
}

double simpleCnnElements(const RunConfig& config) {
    const double convs = normed(config.model, "none") ? 2.0 : 1.0;
    const double c1 = 64.0 * 28.0 * 28.0, p1 = 64.0 * 14.0 * 14.0;
    const double c2 = 128.0 * 14.0 * 14.0, p2 = 128.0 * 7.0 * 7.0;
    return kImageSide * kImageSide + c1 * convs + 2.0 * p1 + c2 * convs + 2.0 * p2 + kClasses;
}

double deepCnnElements(const RunConfig& config) {
    const auto& blocks = config.model.blocks.empty() ? defaultDeepCnnBlocks() : config.model.blocks;
    const double perBlock = normed(config.model, "batch") ? 3.0 : 2.0;
    double side = kImageSide, total = kImageSide * kImageSide;
    for (const auto& b : blocks) {
        if (b[3] < 1) return total;  // validation reports the stride; nothing to estimate
        side = static_cast<double>(static_cast<int64_t>(side + 2.0 * b[4] - b[2]) / b[3] + 1);
        if (side < 1) return total;
        total += static_cast<double>(b[1]) * side * side * perBlock;
    }
    return total + 1000.0 + 1000.0 + kClasses;
}

double transformerElements(const RunConfig& config) {
    const ModelConfig& m = config.model;
    if (m.patch < 1) return 0.0;
    const double side = kImageSide / static_cast<double>(m.patch);
    const double tokens = side * side, dim = static_cast<double>(m.dim);
    const double perBlock = tokens * dim * (9.0 + 2.0 * static_cast<double>(m.mlp_ratio)) +
                            2.0 * static_cast<double>(m.heads) * tokens * tokens;
    return kImageSide * kImageSide + tokens * dim +
           perBlock * static_cast<double>(m.depth) + dim + kClasses;
}

}  // namespace

double activationElementsPerSample(const RunConfig& config) {
    const std::string& name = config.model.name;
    if (name == "mlp") return mlpElements(config);
    if (!imageSet(config.data)) return 0.0;  // the CNNs and the transformer need images
    if (name == "simple_cnn") return simpleCnnElements(config);
    if (name == "deep_cnn") return deepCnnElements(config);
    if (name == "transformer") return transformerElements(config);
    return 0.0;
}

double activationBytesPerStep(const RunConfig& config) {
    // A batch cannot hold more samples than the training set (known for the synthetic
    // sets, data.subset and FashionMNIST's 60000; a user's IDX files may hold any number).
    double batch = static_cast<double>(config.train.batch_size);
    const DataConfig& data = config.data;
    double available = 0.0;
    if (data.dataset == "spirals" || data.dataset == "tiny_gradients")
        available = static_cast<double>(data.synthetic_samples);
    else if (data.dataset == "fashion_mnist")
        available = 60000.0;
    if (data.subset > 0 && (available == 0.0 || static_cast<double>(data.subset) < available))
        available = static_cast<double>(data.subset);
    if (available > 0.0 && available < batch) batch = available;
    return activationElementsPerSample(config) * batch * 4.0;
}

double physicalMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return 0.0;
    return static_cast<double>(pages) * static_cast<double>(pageSize);
}

MemoryLimit memoryLimit() {
    MemoryLimit limit;
    const char* setting = std::getenv(kMemoryLimitVariable);
    if (!setting) {
        limit.bytes = physicalMemoryBytes();
        return limit;
    }
    limit.fromEnvironment = true;
    char* end = nullptr;
    const double bytes = std::strtod(setting, &end);
    if (end == setting || *end != '\0' || !std::isfinite(bytes) || bytes <= 0.0) {
        limit.problem = std::string("must be a positive number of bytes (got \"") + setting + "\")";
        return limit;
    }
    limit.bytes = bytes;
    return limit;
}

}  // namespace ampscope
