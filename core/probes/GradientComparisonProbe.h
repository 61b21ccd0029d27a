#pragma once
// INTERNAL (includes torch). The one place that compares two sets of
// parameter gradients of the same step, per layer (GradientComparison.h): the
// fp32 shadow against the run, and lock-step B against A. Sums run in float64
// on the gradients' device and come to the host in one copy, so a gradient
// compared with itself gives rel_error 0 and cosine 1 exactly.
#include <string>
#include <vector>

#include <torch/torch.h>

#include "probes/GradientComparison.h"

namespace ampscope {

// gradients[k] and reference[k] belong to parameter k, in layer
// parameterLayers[k] (an index into layerNames). Either may be undefined (no
// gradient reached the parameter): it counts as zeros. Layers without
// parameters get no entry; entries come in layer order.
std::vector<GradientComparison> compareGradients(const std::vector<torch::Tensor>& gradients,
                                                 const std::vector<torch::Tensor>& reference,
                                                 const std::vector<size_t>& parameterLayers,
                                                 const std::vector<std::string>& layerNames);

}  // namespace ampscope
