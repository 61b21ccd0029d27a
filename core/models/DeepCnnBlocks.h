#pragma once
// Plain (no torch): the conv stack of deep_cnn (a ResNet-like stack of conv/BatchNorm/ReLU blocks), [in, out, kernel, stride, pad]
// per block. Shared by the model factory and by config validation's memory estimate.
#include <array>
#include <cstdint>
#include <vector>

namespace ampscope {

inline const std::vector<std::array<int64_t, 5>>& defaultDeepCnnBlocks() {
    static const std::vector<std::array<int64_t, 5>> blocks = {
        {1, 32, 3, 1, 1},     {32, 64, 3, 1, 1},    {64, 64, 2, 2, 0},    {64, 128, 3, 1, 1},
        {128, 128, 3, 1, 1},  {128, 128, 3, 1, 1},  {128, 128, 2, 2, 0},  {128, 256, 3, 1, 1},
        {256, 256, 2, 1, 0},  {256, 512, 3, 1, 1},  {512, 512, 3, 1, 1},  {512, 512, 3, 1, 1},
        {512, 512, 2, 2, 0},  {512, 1024, 3, 1, 1}};
    return blocks;
}

}  // namespace ampscope
