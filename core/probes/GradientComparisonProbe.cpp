#include "probes/GradientComparisonProbe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace ampscope {
namespace {

// Sums per layer, in this order, as one float64 row.
enum Sum { kDiffSquared, kReferenceSquared, kGradientSquared, kDot, kLost, kNonZero, kSums };

torch::Tensor flatDouble(const torch::Tensor& t, const torch::Tensor& like) {
    if (!t.defined()) return torch::zeros({like.numel()}, like.options().dtype(torch::kDouble));
    return t.detach().to(torch::kDouble).flatten();
}

GradientComparison fromSums(const std::string& layer, const double* s, int64_t elements) {
    GradientComparison c;
    c.layer = layer;
    c.elements = elements;
    c.lost = static_cast<int64_t>(s[kLost]);
    c.nonzero = static_cast<int64_t>(s[kNonZero]);
    const double dd = s[kDiffSquared], ss = s[kReferenceSquared], gg = s[kGradientSquared];
    if (ss == 0.0)
        c.relError = dd == 0.0 ? 0.0 : (std::isnan(dd) ? dd : std::numeric_limits<double>::infinity());
    else
        c.relError = std::sqrt(dd) / std::sqrt(ss);
    if (std::isnan(gg) || std::isnan(ss) || std::isinf(gg) || std::isinf(ss))
        c.cosine = std::numeric_limits<double>::quiet_NaN();
    else if (gg == 0.0 && ss == 0.0)
        c.cosine = 1.0;
    else if (gg == 0.0 || ss == 0.0)
        c.cosine = 0.0;
    else  // sqrt(gg * ss) is gg exactly when g == s, so identical gradients give 1
        c.cosine = std::clamp(s[kDot] / std::sqrt(gg * ss), -1.0, 1.0);
    return c;
}

}  // namespace

std::vector<GradientComparison> compareGradients(const std::vector<torch::Tensor>& gradients,
                                                 const std::vector<torch::Tensor>& reference,
                                                 const std::vector<size_t>& parameterLayers,
                                                 const std::vector<std::string>& layerNames) {
    if (gradients.size() != reference.size() || gradients.size() != parameterLayers.size())
        throw std::invalid_argument("compareGradients: gradient lists of different lengths");
    torch::NoGradGuard noGrad;
    // Each layer's parameters, flattened and joined, both sides.
    std::map<size_t, std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>>> byLayer;
    for (size_t k = 0; k < gradients.size(); ++k) {
        const auto& g = gradients[k];
        const auto& s = reference[k];
        if (!g.defined() && !s.defined()) continue;
        const auto& like = g.defined() ? g : s;
        auto& [gs, ss] = byLayer[parameterLayers[k]];
        gs.push_back(flatDouble(g, like));
        ss.push_back(flatDouble(s, like));
    }
    std::vector<torch::Tensor> rows;
    std::vector<size_t> layers;
    std::vector<int64_t> elements;
    for (auto& [layer, pair] : byLayer) {
        const auto g = torch::cat(pair.first);
        const auto s = torch::cat(pair.second).to(g.device());
        const auto diff = g - s;
        const auto referenceNonZero = s.ne(0);
        rows.push_back(torch::stack({diff.mul(diff).sum(), s.mul(s).sum(), g.mul(g).sum(), g.mul(s).sum(),
                                     (referenceNonZero & g.eq(0)).sum().to(torch::kDouble),
                                     referenceNonZero.sum().to(torch::kDouble)}));
        layers.push_back(layer);
        elements.push_back(g.numel());
    }
    std::vector<GradientComparison> result;
    if (rows.empty()) return result;
    const auto host = torch::stack(rows).to(torch::kCPU).contiguous();
    const double* data = host.data_ptr<double>();
    for (size_t i = 0; i < layers.size(); ++i)
        result.push_back(fromSums(layerNames.at(layers[i]), data + i * kSums, elements[i]));
    return result;
}

}  // namespace ampscope
