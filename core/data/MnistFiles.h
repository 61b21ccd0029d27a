#pragma once
// INTERNAL (includes torch). MnistFiles: finds and loads one MNIST-format image/label
// pair ("train" or "t10k") from a directory, and checks that the pair makes a labelled
// image set.
//
// Contract:
//  - Files are PREFIX-images-idx3-ubyte[.gz] and PREFIX-labels-idx1-ubyte[.gz]; the
//    .gz file wins when both exist (it is what Debian ships; compression itself is
//    detected from the content by IdxReader).
//  - Images must be 3-D (N, rows, cols; any size), labels 1-D with the same N, every
//    label in 0..num_classes-1. Violations and missing files throw InputError naming
//    the file; `missingHint` (e.g. "install the dataset-fashion-mnist package or set
//    data.path") is appended to not-found errors.
//  - Pixels stay uint8 here: splitting and subsetting bytes is 4x cheaper than floats,
//    and normalisation statistics come from the final training subset (PixelConversion).
#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace ampscope {

struct IdxImageSet {
    torch::Tensor pixels;  // uint8 [N, rows, cols], contiguous
    torch::Tensor labels;  // int64 [N]
    std::string imagesPath;
    std::string labelsPath;
};

// The path of PREFIX-KIND-idxR-ubyte(.gz) in `dir`; throws when neither exists.
std::string findIdxFile(const std::string& dir, const std::string& stem,
                        const std::string& missingHint);

IdxImageSet loadIdxImageSet(const std::string& dir, const std::string& prefix, int64_t numClasses,
                            const std::string& missingHint);

}  // namespace ampscope
