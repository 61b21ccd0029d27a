#include "models/LayeredModel.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "precision/InsertedOps.h"
#include "precision/NamedOpScope.h"
#include "precision/Autocast.h"

namespace ampscope {

namespace {

thread_local const std::string* runningLayer = nullptr;

struct RunningLayer {
    explicit RunningLayer(const std::string& name) : previous(std::exchange(runningLayer, &name)) {}
    ~RunningLayer() { runningLayer = previous; }
    const std::string* previous;
};

}  // namespace

const std::string* currentZooLayer() { return runningLayer; }

void LayeredModel::addLayer(const std::string& name, LayerPtr layer) {
    register_module(name, layer);
    names_.push_back(name);
    layers_.push_back(std::move(layer));
}

bool LayeredModel::hasLayer(const std::string& name) const {
    return std::find(names_.begin(), names_.end(), name) != names_.end();
}

int64_t LayeredModel::parameterCount() const {
    int64_t count = 0;
    for (const auto& p : parameters()) count += p.numel();
    return count;
}

torch::Tensor LayeredModel::forward(const torch::Tensor& input, const ComputePolicy& policy,
                                    LayerObserver* observer) {
    torch::Tensor x = input;
    for (size_t i = 0; i < layers_.size(); ++i) {
        const std::string& name = names_[i];
        const bool kept = policy.keeps(name);
        RunningLayer running(name);
        {
            NamedOpScope entry(inserted_op::kModuleInput, x);
            if (kept && x.is_floating_point()) x = x.to(torch::kFloat);
            if (policy.pureWeights && !kept && x.is_floating_point()) x = x.to(policy.lowDtype);
            entry.output(x);
        }
        {
            std::optional<AutocastScope> fp32Region;
            if (kept && policy.realAutocast)
                fp32Region.emplace(policy.device.type(), policy.lowDtype, false);
            x = layers_[i]->forward(x, policy.forLayer(name));
        }
        NamedOpScope leave(inserted_op::kLeaveModule, x);
        if (policy.pureRounding != Rounding::None && !kept)
            x = roundWithGradient(x, policy.pureRounding, policy.pureRounding);
        if (observer) observer->afterLayer(i, name, x);
        leave.output(x);
    }
    return x;
}

}  // namespace ampscope
