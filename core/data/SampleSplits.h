#pragma once
// INTERNAL (includes torch). SampleSplits: the seeded hold-out and subset every data
// set draws its train and val rows with (the IDX images, the synthetic sets, the
// user's tensors), written once so that "split" and "subset" mean the same thing
// whatever the data.
//
// Contract:
//  - holdOut shuffles the rows with the ValidationSplit stream of `seed` and holds out
//    round(fraction * N) of them as val (the first ones of the permutation); train and val
//    must each keep at least one row, else InputError naming data.val_fraction.
//  - holdOutValidation is data.validation "split" for every set that has it: holdOut of
//    the training rows, train keeping the rest, and the note the description carries,
//    "val N (split F of train)", F as %g writes it.
//  - applySubset keeps the first `subset` training rows of a permutation drawn from the
//    TrainSubset stream; subset <= 0 or >= N keeps everything. It returns the note the
//    description carries: "" (nothing asked), " (subset of N)" or " (subset S >= N: all
//    kept)".
//  - Rows may hold any dtype (uint8 pixels before conversion, floats after): selecting
//    bytes is cheaper, and statistics are then taken on the final training rows.
//  - The global torch generator is never touched.
#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace ampscope {

// Inputs and targets indexed together along dim 0.
struct Rows {
    torch::Tensor inputs;
    torch::Tensor targets;
    int64_t size() const { return inputs.size(0); }
    Rows select(const torch::Tensor& index) const {
        return {inputs.index_select(0, index), targets.index_select(0, index)};
    }
};

struct Split {
    Rows train;
    Rows val;
};

Split holdOut(const Rows& all, double fraction, uint64_t seed);
std::string holdOutValidation(Rows& train, Rows& val, double fraction, uint64_t seed);
std::string applySubset(Rows& train, int64_t subset, uint64_t seed);

}  // namespace ampscope
