#pragma once
// INTERNAL (includes torch). PixelConversion: uint8 images to the float32 network
// input, optionally standardised.
//
// Contract:
//  - pixelStats: mean and population std of pixel/255 over every pixel of a uint8
//    tensor, computed exactly from a 256-bin histogram (no float accumulation drift
//    on 47 million pixels).
//  - bytesToFloat: uint8 of any shape -> contiguous float32 of the same shape holding
//    (byte/255 - mean) / std, in one pass through a 256-entry lookup table. With mean 0
//    and std 1 the values are byte/255 in [0, 1]. A std of 0 (a constant set) divides by 1.
//  - pixelsToFloat: the same for images, uint8 [N, H, W] -> float32 [N, 1, H, W].
//  - normalizedNote: what a data set's description says of the standardisation,
//    ", normalized with train mean 0.2860 std 0.3530" (four decimals).
#include <torch/torch.h>

#include <string>

namespace ampscope {

struct PixelStats {
    double mean = 0.0;
    double std = 1.0;
};

PixelStats pixelStats(const torch::Tensor& pixels);
torch::Tensor bytesToFloat(const torch::Tensor& bytes, const PixelStats& stats);
torch::Tensor pixelsToFloat(const torch::Tensor& pixels, const PixelStats& stats);
std::string normalizedNote(const PixelStats& stats);

}  // namespace ampscope
