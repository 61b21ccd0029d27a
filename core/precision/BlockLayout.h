#pragma once
// INTERNAL (includes torch). Which dimension a block format's blocks run along: the
// reduction dimension of the product the tensor enters (OCP MX v1.0: "blocks of k
// consecutive elements along the dot product's reduction dimension"). The quantizers
// block the last dimension; the others are moved there (a view or a copy) and back.
// Per-tensor recipes have no blocks and ignore it.
#include <torch/torch.h>

namespace ampscope {

enum class BlockLayout {
    LastDim,          // a linear layer's input and weight [.., K], a first matmul operand
    Channels,         // a conv's input [N, C, ...] and its output gradient [N, Cout, ...]
    SecondToLast,     // a matmul's second operand [.., K, N] (and addmm's weight.t())
    FlattenTrailing,  // a conv's weight [Cout, C, k...]: blocks along C x k... flattened
};

// The tensor with its blocks' dimension last.
torch::Tensor blocksLast(const torch::Tensor& x, BlockLayout layout);
// Back to the layout of a tensor of `sizes` (contiguous: the next op gets the memory
// layout it was given).
torch::Tensor fromBlocksLast(const torch::Tensor& q, BlockLayout layout, at::IntArrayRef sizes);

}  // namespace ampscope
