#include "data/BatchIterator.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <stdexcept>

#include "data/SeedStreams.h"

namespace ampscope {
namespace {
torch::Tensor contiguousOrEmpty(const torch::Tensor& tensor) {
    return tensor.defined() ? tensor.contiguous() : tensor;
}
}  // namespace

BatchIterator::BatchIterator(const TensorDataset& data, int64_t batch_size, bool shuffle,
                             uint64_t seed)
    : data_{contiguousOrEmpty(data.inputs), contiguousOrEmpty(data.targets)},
      batch_size_(batch_size),
      shuffle_(shuffle),
      seed_(seed) {
    // Config validation reports a bad train.batch_size to the user; this is a bug guard.
    if (batch_size_ <= 0) throw std::invalid_argument("BatchIterator: batch_size must be > 0");
    if (data_.inputs.defined() && data_.targets.size(0) != data_.inputs.size(0))
        throw std::invalid_argument("BatchIterator: inputs and targets differ in length");
    startEpoch(0);
}

void BatchIterator::startEpoch(int64_t epoch) {
    epoch_ = epoch;
    position_ = 0;
    if (!shuffle_ || size() == 0) return;
    if (!order_.defined()) order_ = torch::empty({size()}, torch::TensorOptions(torch::kInt64));
    torch::Generator generator = at::make_generator<at::CPUGeneratorImpl>(
        deriveSeed(seed_, SeedStream::BatchOrder, static_cast<uint64_t>(epoch)));
    torch::randperm_out(order_, size(), generator);
    // index_select wants the index on the data's device (a no-op copy on CPU).
    if (order_.device() != data_.inputs.device()) order_ = order_.to(data_.inputs.device());
}

bool BatchIterator::next(torch::Tensor& inputs, torch::Tensor& targets) {
    if (position_ >= size()) return false;
    const int64_t count = std::min(batch_size_, size() - position_);
    if (shuffle_) {
        const torch::Tensor index = order_.narrow(0, position_, count);
        inputs = data_.inputs.index_select(0, index);
        targets = data_.targets.index_select(0, index);
    } else {
        // A leading-dimension slice of a contiguous tensor is itself contiguous.
        inputs = data_.inputs.narrow(0, position_, count);
        targets = data_.targets.narrow(0, position_, count);
    }
    position_ += count;
    return true;
}

int64_t BatchIterator::batchesPerEpoch() const {
    return (size() + batch_size_ - 1) / batch_size_;
}

int64_t BatchIterator::batchIndex() const {
    return (position_ + batch_size_ - 1) / batch_size_;
}

}  // namespace ampscope
