#pragma once
// INTERNAL (includes torch). A user's model, from a TorchScript archive
// (torch.jit.trace or torch.jit.script, then .save()), trained by the lab like a zoo
// model. Loading it runs the TorchScript code inside it: only ever load a file the
// user named in a config, never one found in a run directory.
//
// Layers are the module's named submodules with the qualified names Python's
// named_modules() gives ("blocks.1.fc2"). By default the probed layers are the
// modules that hold parameters of their own (the model itself, when it holds some,
// is listed as "(model)"); model.probe_modules names others, model.probe_depth takes
// the modules at one depth. A parameter belongs to the nearest probed module around
// it; a parameter no chosen module covers makes its own module a layer too, so every
// parameter is in exactly one layer.
//
// The module's graphs are instrumented (TorchScriptGraphPass.h), so the precision
// policy, the observer and the rounding tags reach its submodules and its
// matmul/conv ops as they reach a zoo model's layers.
#include <memory>
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "models/ScriptModuleInfo.h"
#include "models/TrainableModel.h"

namespace ampscope {

class TorchScriptModel : public TrainableModel {
public:
    // Loads config.path (already absolute) onto `device`. takesTargets: the forward
    // takes (inputs, targets) and returns the loss (train.loss "model"). Any problem
    // with the file is an InputError naming it, in one line.
    static std::unique_ptr<TorchScriptModel> load(const ModelConfig& config, const c10::Device& device,
                                                  bool takesTargets);
    ~TorchScriptModel() override;

    torch::Tensor forward(const torch::Tensor& input, const ComputePolicy& policy,
                          LayerObserver* observer) override;
    bool computesOwnLoss() const override;
    torch::Tensor forwardLoss(const torch::Tensor& input, const torch::Tensor& targets,
                              const ComputePolicy& policy, LayerObserver* observer) override;

    const std::vector<std::string>& layerNames() const override;
    std::vector<std::string> layersWithin(const std::string& name) const override;
    std::vector<torch::Tensor> layerParameters(size_t index) override;
    std::vector<torch::Tensor> parameters() override;
    std::vector<torch::Tensor> buffers() override;
    void setTraining(bool on) override;
    void moveTo(const c10::Device& device) override;
    void layerTo(size_t index, c10::ScalarType dtype) override;

    const std::vector<ScriptModuleInfo>& modules() const;
    const std::vector<ScriptModuleInfo>* moduleTree() const override { return &modules(); }

private:
    struct Impl;
    explicit TorchScriptModel(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace ampscope
