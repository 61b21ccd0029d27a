#pragma once
// INTERNAL (includes torch). BatchIterator: hands out the mini-batches of one epoch at
// a time.
//
// Contract:
//  - The order of epoch e depends only on (seed, e): the same seed gives the same
//    batches, which the A/B lock-step comparison relies on; different epochs get
//    different orders. With shuffle off the order is 0..N-1 every epoch.
//  - Every sample appears exactly once per epoch; the last batch is partial when
//    batch_size does not divide N (it is not dropped).
//  - Batches are contiguous tensors on the dataset's device. Shuffled batches are new
//    tensors (index_select); unshuffled ones are views of the dataset (no copy). Either
//    way a batch stays valid after the next call, so callers may keep them.
//  - The constructor starts epoch 0; startEpoch(e) rewinds to the start of epoch e.
//  - Not thread-safe: one iterator belongs to one thread (the engine's).
#include <torch/torch.h>

#include <cstdint>

#include "data/Dataset.h"

namespace ampscope {

class BatchIterator {
public:
    BatchIterator(const TensorDataset& data, int64_t batch_size, bool shuffle, uint64_t seed);

    void startEpoch(int64_t epoch);
    // Fills the next batch of the current epoch; false (outputs untouched) at its end.
    bool next(torch::Tensor& inputs, torch::Tensor& targets);

    int64_t batchesPerEpoch() const;
    int64_t position() const { return position_; }  // samples handed out this epoch
    int64_t batchIndex() const;                     // batches handed out this epoch
    int64_t epoch() const { return epoch_; }
    int64_t batchSize() const { return batch_size_; }
    int64_t size() const { return data_.size(); }

private:
    TensorDataset data_;  // shares the storage (tensors are reference-counted)
    int64_t batch_size_;
    bool shuffle_;
    uint64_t seed_;
    int64_t epoch_ = 0;
    int64_t position_ = 0;
    torch::Tensor order_;  // int64 permutation of the epoch, reused across epochs
};

}  // namespace ampscope
