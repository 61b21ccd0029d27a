#include "models/ScriptRunContext.h"

namespace ampscope {

namespace {
thread_local ScriptRunContext* installed = nullptr;
}  // namespace

ScriptRunContext* currentScriptRunContext() { return installed; }

ScriptRunScope::ScriptRunScope(ScriptRunContext& context) : previous_(installed) {
    installed = &context;
}

ScriptRunScope::~ScriptRunScope() { installed = previous_; }

ScriptRunContext::ScriptRunContext(const ScriptModuleMap& modules, const ComputePolicy& policy,
                                   LayerObserver* observer)
    : modules_(modules), policy_(policy), observer_(observer) {
    auto root = std::make_unique<Frame>();
    if (auto it = modules_.layerIndex.find(""); it != modules_.layerIndex.end())
        root->layer = root->innermostLayer = static_cast<long>(it->second);
    root->kept = policy_.keeps(kRootLayerName);
    root->compute = policy_.forLayer(root->layer >= 0 ? kRootLayerName : "");
    frames_.push_back(std::move(root));
}

void ScriptRunContext::enter(const std::string& relative) {
    const Frame& parent = *frames_.back();
    auto frame = std::make_unique<Frame>();
    frame->path = parent.path.empty() ? relative : parent.path + "." + relative;
    if (auto it = modules_.layerIndex.find(frame->path); it != modules_.layerIndex.end())
        frame->layer = static_cast<long>(it->second);
    frame->innermostLayer = frame->layer >= 0 ? frame->layer : parent.innermostLayer;
    // keep_fp32 names modules: everything inside a kept module is kept.
    frame->kept = parent.kept || policy_.keeps(frame->path);
    if (frame->kept) {
        frame->compute = LayerCompute{};
        // Real autocast off inside, as the zoo runs a kept layer.
        if (!parent.kept && policy_.realAutocast)
            frame->fp32Region.emplace(policy_.device.type(), policy_.lowDtype, false);
    } else if (frame->layer >= 0) {
        frame->compute = policy_.forLayer(frame->path);
    } else {
        frame->compute = parent.compute;
    }
    frames_.push_back(std::move(frame));
}

void ScriptRunContext::leave() {
    // The root frame stays: a module that threw left its frames, and the next forward
    // builds a new context anyway.
    if (frames_.size() > 1) frames_.pop_back();
}

torch::Tensor ScriptRunContext::moduleInput(const torch::Tensor& x) const {
    if (!x.defined() || !x.is_floating_point()) return x;
    const Frame& frame = *frames_.back();
    if (frame.kept) return x.to(torch::kFloat);
    if (policy_.pureWeights) return x.to(policy_.lowDtype);
    return x;
}

torch::Tensor ScriptRunContext::moduleOutput(torch::Tensor y) {
    const Frame& frame = *frames_.back();
    if (frame.layer < 0 || !y.defined()) return y;
    if (policy_.pureRounding != Rounding::None && !frame.kept && y.is_floating_point())
        y = roundWithGradient(y, policy_.pureRounding, policy_.pureRounding);
    const auto index = static_cast<size_t>(frame.layer);
    if (observer_) observer_->afterLayer(index, modules_.layers[index], y);
    return y;
}

}  // namespace ampscope
