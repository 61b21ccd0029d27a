#include "precision/BlockLayout.h"

namespace ampscope {

torch::Tensor blocksLast(const torch::Tensor& x, BlockLayout layout) {
    switch (layout) {
        case BlockLayout::LastDim: return x;
        case BlockLayout::Channels: return x.dim() >= 3 ? x.movedim(1, -1) : x;
        case BlockLayout::SecondToLast: return x.dim() >= 2 ? x.transpose(-2, -1) : x;
        case BlockLayout::FlattenTrailing: return x.dim() >= 3 ? x.flatten(1) : x;
    }
    return x;
}

torch::Tensor fromBlocksLast(const torch::Tensor& q, BlockLayout layout, at::IntArrayRef sizes) {
    switch (layout) {
        case BlockLayout::LastDim: return q;
        case BlockLayout::Channels: return q.dim() >= 3 ? q.movedim(-1, 1).contiguous() : q;
        case BlockLayout::SecondToLast: return q.dim() >= 2 ? q.transpose(-2, -1).contiguous() : q;
        case BlockLayout::FlattenTrailing: return q.reshape(sizes);
    }
    return q;
}

}  // namespace ampscope
