#include "data/MnistFiles.h"

#include <filesystem>
#include <memory>
#include <vector>

#include "common/InputError.h"
#include "data/IdxReader.h"

namespace ampscope {
namespace {

std::string withHint(const std::string& message, const std::string& hint) {
    return hint.empty() ? message : message + "; " + hint;
}

// Hands the reader's buffer to torch without a copy (47 MB for the FashionMNIST
// training images); the tensor owns the vector from here on.
torch::Tensor adoptBytes(std::vector<uint8_t>&& bytes, const std::vector<int64_t>& sizes) {
    auto owned = std::make_unique<std::vector<uint8_t>>(std::move(bytes));
    std::vector<uint8_t>* raw = owned.get();
    torch::Tensor tensor = torch::from_blob(
        raw->data(), sizes, [raw](void*) { delete raw; }, torch::kUInt8);
    owned.release();  // from_blob succeeded: the deleter owns it now
    return tensor;
}

}  // namespace

std::string findIdxFile(const std::string& dir, const std::string& stem,
                        const std::string& missingHint) {
    const std::filesystem::path base = std::filesystem::path(dir) / stem;
    std::error_code error;
    const std::string gz = base.string() + ".gz";
    if (std::filesystem::is_regular_file(gz, error)) return gz;
    if (std::filesystem::exists(base, error)) return base.string();
    throw InputError(withHint(base.string() + "[.gz]: not found", missingHint));
}

IdxImageSet loadIdxImageSet(const std::string& dir, const std::string& prefix, int64_t numClasses,
                            const std::string& missingHint) {
    IdxImageSet set;
    set.imagesPath = findIdxFile(dir, prefix + "-images-idx3-ubyte", missingHint);
    set.labelsPath = findIdxFile(dir, prefix + "-labels-idx1-ubyte", missingHint);

    IdxArray images = readIdxFile(set.imagesPath);
    if (images.dims.size() != 3)
        throw InputError(set.imagesPath + ": expected 3 dimensions (N, rows, cols), got " +
                         std::to_string(images.dims.size()));
    IdxArray labels = readIdxFile(set.labelsPath);
    if (labels.dims.size() != 1)
        throw InputError(set.labelsPath + ": expected 1 dimension (N), got " +
                         std::to_string(labels.dims.size()));
    if (labels.count() != images.count())
        throw InputError(set.labelsPath + ": labels count " + std::to_string(labels.count()) +
                         " != images count " + std::to_string(images.count()) + " in " +
                         set.imagesPath);

    for (size_t i = 0; i < labels.data.size(); ++i) {
        if (labels.data[i] >= numClasses)
            throw InputError(set.labelsPath + ": label " + std::to_string(labels.data[i]) +
                             " at index " + std::to_string(i) + " out of range 0.." +
                             std::to_string(numClasses - 1));
    }

    set.pixels = adoptBytes(std::move(images.data), images.dims);
    set.labels = adoptBytes(std::move(labels.data), labels.dims).to(torch::kInt64);
    return set;
}

}  // namespace ampscope
