#pragma once
// PixelConversion: uint8 images to the float32 network input, optionally standardised.
// INTERNAL to core (includes torch).
//
// Contract:
//  - pixelStats: mean and population std of pixel/255 over every pixel of a uint8
//    tensor, computed exactly from a 256-bin histogram (no float accumulation drift
//    on 47 million pixels).
//  - pixelsToFloat: uint8 [N, H, W] -> contiguous float32 [N, 1, H, W] holding
//    (pixel/255 - mean) / std, in one pass through a 256-entry lookup table. With
//    mean 0 and std 1 the values are pixel/255 in [0, 1].
#include <torch/torch.h>

namespace ampscope {

struct PixelStats {
    double mean = 0.0;
    double std = 1.0;
};

PixelStats pixelStats(const torch::Tensor& pixels);
torch::Tensor pixelsToFloat(const torch::Tensor& pixels, const PixelStats& stats);

}  // namespace ampscope
