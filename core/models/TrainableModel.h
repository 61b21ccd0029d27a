#pragma once
// INTERNAL (includes torch). What the trainer needs of a model, whoever built it: the
// zoo's LayeredModel (ZooModel) or a user's TorchScript file (TorchScriptModel).
// A model is seen as an ordered list of named layers, each owning some parameters;
// forward() applies the precision policy at the layers and their matmul/conv ops and
// shows each layer's output to the observer (probes, fault injection), which may
// replace it.
#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "models/LayeredModel.h"
#include "models/ScriptModuleInfo.h"
#include "precision/ComputePolicy.h"

namespace ampscope {

class TrainableModel {
public:
    virtual ~TrainableModel() = default;

    virtual torch::Tensor forward(const torch::Tensor& input, const ComputePolicy& policy,
                                  LayerObserver* observer = nullptr) = 0;
    // For models whose forward takes (inputs, targets) and returns the scalar loss
    // itself (train.loss "model").
    virtual bool computesOwnLoss() const { return false; }
    virtual torch::Tensor forwardLoss(const torch::Tensor& input, const torch::Tensor& targets,
                                      const ComputePolicy& policy, LayerObserver* observer);

    virtual const std::vector<std::string>& layerNames() const = 0;
    size_t layerCount() const { return layerNames().size(); }
    const std::string& layerName(size_t index) const { return layerNames().at(index); }
    bool hasLayer(const std::string& name) const;
    // The layers `name` stands for in the fields that name a layer (keep_fp32, faults,
    // watchpoints): itself when it is a layer; for a TorchScript model also the probed
    // layers inside a module of that name. Empty: the model has no such name.
    virtual std::vector<std::string> layersWithin(const std::string& name) const;
    // The parameters each layer owns; every trainable parameter belongs to one layer.
    virtual std::vector<torch::Tensor> layerParameters(size_t index) = 0;
    // All parameters and buffers in a fixed order (two models built from the same
    // source list them alike; copyStateFrom relies on it).
    virtual std::vector<torch::Tensor> parameters() = 0;
    virtual std::vector<torch::Tensor> buffers() = 0;
    int64_t parameterCount();

    virtual void setTraining(bool on) = 0;
    virtual void moveTo(const c10::Device& device) = 0;
    // Pure modes hold a layer's weights (and floating buffers) in the low dtype.
    virtual void layerTo(size_t index, c10::ScalarType dtype) = 0;

    // A user's model: its module tree (for the model_modules record); null otherwise.
    virtual const std::vector<ScriptModuleInfo>* moduleTree() const { return nullptr; }
};

// The zoo's models, as the trainer sees them.
class ZooModel : public TrainableModel {
public:
    explicit ZooModel(std::shared_ptr<LayeredModel> model) : model_(std::move(model)) {}

    torch::Tensor forward(const torch::Tensor& input, const ComputePolicy& policy,
                          LayerObserver* observer) override {
        return model_->forward(input, policy, observer);
    }
    const std::vector<std::string>& layerNames() const override { return model_->layerNames(); }
    std::vector<torch::Tensor> layerParameters(size_t index) override {
        return model_->layer(index).parameters();
    }
    std::vector<torch::Tensor> parameters() override { return model_->parameters(); }
    std::vector<torch::Tensor> buffers() override { return model_->buffers(); }
    void setTraining(bool on) override { model_->train(on); }
    void moveTo(const c10::Device& device) override { model_->to(device); }
    void layerTo(size_t index, c10::ScalarType dtype) override { model_->layer(index).to(dtype); }

    LayeredModel& layered() { return *model_; }

private:
    std::shared_ptr<LayeredModel> model_;
};

}  // namespace ampscope
