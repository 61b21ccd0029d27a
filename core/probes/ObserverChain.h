#pragma once
// INTERNAL (includes torch). Runs several LayerObservers on each layer output,
// in the order they were added. Order matters: an observer that replaces the
// output or hooks its gradient (fault injection) must come BEFORE the ones
// that measure it (NonFiniteLocator), so they see what training sees. Gradient
// hooks run in registration order too, so the same order holds in backward.
// Holds plain pointers: the observers must outlive the steps they watch.
#include <string>
#include <vector>

#include "models/LayeredModel.h"

namespace ampscope {

class ObserverChain : public LayerObserver {
public:
    void add(LayerObserver* observer) {
        if (observer) observers_.push_back(observer);
    }
    bool empty() const { return observers_.empty(); }
    void afterLayer(size_t index, const std::string& name, torch::Tensor& output) override {
        for (auto* observer : observers_) observer->afterLayer(index, name, output);
    }

private:
    std::vector<LayerObserver*> observers_;
};

}  // namespace ampscope
