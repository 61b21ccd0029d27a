#pragma once
// INTERNAL (includes torch). A model as an ordered list of named layers, so
// probes can look between them. forward() applies the precision policy per
// layer: real autocast around everything but the layers kept in fp32 (those run
// with autocast off on fp32 inputs), emulated rounding through LayerCompute,
// and in emulated pure modes a rounding of every layer's output. An observer
// sees (and may replace, for fault injection) each layer's output. A layer's entry
// casts and its output (rounding, observer) are named in the op stream as the
// TorchScript graph pass names a module's (NamedOpScope.h).
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "models/Layer.h"
#include "precision/ComputePolicy.h"

namespace ampscope {

class LayerObserver {
public:
    virtual ~LayerObserver() = default;
    virtual void afterLayer(size_t index, const std::string& name, torch::Tensor& output) = 0;
};

// The zoo layer whose forward is running on this thread (a name LayeredModel owns), or
// null: for watchers of the op stream that attribute ops to layers (OpCapture).
const std::string* currentZooLayer();

class LayeredModel : public torch::nn::Module {
public:
    void addLayer(const std::string& name, LayerPtr layer);

    torch::Tensor forward(const torch::Tensor& input, const ComputePolicy& policy,
                          LayerObserver* observer = nullptr);

    size_t layerCount() const { return layers_.size(); }
    const std::string& layerName(size_t index) const { return names_.at(index); }
    const std::vector<std::string>& layerNames() const { return names_; }
    Layer& layer(size_t index) { return *layers_.at(index); }
    bool hasLayer(const std::string& name) const;
    int64_t parameterCount() const;

private:
    std::vector<std::string> names_;
    std::vector<LayerPtr> layers_;
};

}  // namespace ampscope
