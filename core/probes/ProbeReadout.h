#pragma once
// INTERNAL (includes torch). Brings the small result tensors ("slots") of a
// probe step to the host with ONE copy, instead of one synchronising .item()
// or .to(kCPU) per layer and probe. Add the slot tensors as the step produces
// them (they stay on their device, no synchronisation), call read() once,
// then look each up by the handle add() returned.
//
//   ProbeReadout readout;
//   const auto h = readout.add(histogramSlots(weightGrad));
//   const auto c = readout.add(fp16ClassSlots(weightGrad, {scale / 2, scale, scale * 2}));
//   readout.read();
//   ExponentHistogram hist = histogramFromSlots(readout.data(h));
//   Fp16ClassCounts atScale = fp16ClassesFromSlots(readout.data(c) + fp16_class_slot::kCount);
//
// Values travel as float64 (counts are exact up to 2^53). Tensors on one
// device are joined there and copied once; a mix of devices costs one copy
// per tensor not on the first one's device.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace ampscope {

class ProbeReadout {
public:
    using Handle = size_t;

    Handle add(const torch::Tensor& slots);
    // Copies everything added since the last clear() to the host.
    void read();
    // Host values of one added tensor (flattened, row-major); valid after read().
    const double* data(Handle handle) const;
    int64_t size(Handle handle) const;
    size_t count() const { return sizes_.size(); }
    bool wasRead() const { return read_; }
    void clear();

private:
    std::vector<torch::Tensor> pending_;
    std::vector<int64_t> offsets_;
    std::vector<int64_t> sizes_;
    int64_t total_ = 0;
    torch::Tensor host_;
    bool read_ = false;
};

}  // namespace ampscope
