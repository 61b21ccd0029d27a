#include "models/TrainableModel.h"

#include <algorithm>
#include <stdexcept>

namespace ampscope {

torch::Tensor TrainableModel::forwardLoss(const torch::Tensor&, const torch::Tensor&,
                                          const ComputePolicy&, LayerObserver*) {
    throw std::logic_error("this model does not compute its own loss");
}

bool TrainableModel::hasLayer(const std::string& name) const {
    const auto& names = layerNames();
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> TrainableModel::layersWithin(const std::string& name) const {
    if (hasLayer(name)) return {name};
    return {};
}

int64_t TrainableModel::parameterCount() {
    int64_t count = 0;
    for (const auto& p : parameters()) count += p.numel();
    return count;
}

}  // namespace ampscope
