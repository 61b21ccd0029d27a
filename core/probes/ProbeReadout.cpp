#include "probes/ProbeReadout.h"

#include <stdexcept>

namespace ampscope {

ProbeReadout::Handle ProbeReadout::add(const torch::Tensor& slots) {
    if (read_) throw std::logic_error("ProbeReadout::add after read(); clear() first");
    const auto flat = slots.detach().reshape({-1}).to(torch::kDouble);
    pending_.push_back(flat);
    offsets_.push_back(total_);
    sizes_.push_back(flat.numel());
    total_ += flat.numel();
    return sizes_.size() - 1;
}

void ProbeReadout::read() {
    if (read_) return;
    read_ = true;
    if (pending_.empty()) {
        host_ = torch::empty({0}, torch::kDouble);
        return;
    }
    const auto device = pending_.front().device();
    bool oneDevice = true;
    for (const auto& t : pending_) oneDevice = oneDevice && t.device() == device;
    if (oneDevice) {
        host_ = torch::cat(pending_).to(torch::kCPU).contiguous();
    } else {
        std::vector<torch::Tensor> onHost;
        for (const auto& t : pending_) onHost.push_back(t.to(torch::kCPU));
        host_ = torch::cat(onHost).contiguous();
    }
    pending_.clear();
}

const double* ProbeReadout::data(Handle handle) const {
    if (!read_) throw std::logic_error("ProbeReadout::data before read()");
    return host_.data_ptr<double>() + offsets_.at(handle);
}

int64_t ProbeReadout::size(Handle handle) const {
    return sizes_.at(handle);
}

void ProbeReadout::clear() {
    pending_.clear();
    offsets_.clear();
    sizes_.clear();
    total_ = 0;
    host_ = torch::Tensor();
    read_ = false;
}

}  // namespace ampscope
