#pragma once
// Plain (no torch). Running means of per-layer gradient comparisons over the
// compared steps, for summary.json (the fp32 shadow, lock-step A/B). A step
// whose comparison is not finite (an overflowed gradient) says nothing about
// agreement and is left out of the mean.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/RunSummary.h"
#include "probes/GradientComparison.h"

namespace ampscope {

class ComparisonMeans {
public:
    void add(const std::vector<GradientComparison>& layers) {
        for (const auto& c : layers) {
            auto [it, added] = sums_.try_emplace(c.layer);
            if (added) {
                order_.push_back(c.layer);
                it->second = LayerGradientSummary{c.layer, 0.0, 0.0, 0};
            }
            if (!std::isfinite(c.cosine) || !std::isfinite(c.relError)) continue;
            it->second.meanCosine += c.cosine;
            it->second.meanRelError += c.relError;
            ++it->second.steps;
        }
    }
    bool empty() const { return order_.empty(); }
    // Layers in the order first seen (forward order).
    std::vector<LayerGradientSummary> means() const {
        std::vector<LayerGradientSummary> result;
        for (const auto& layer : order_) {
            LayerGradientSummary m = sums_.at(layer);
            m.layer = layer;
            const double n = static_cast<double>(m.steps);
            m.meanCosine = m.steps ? m.meanCosine / n : NAN;
            m.meanRelError = m.steps ? m.meanRelError / n : NAN;
            result.push_back(m);
        }
        return result;
    }

private:
    std::map<std::string, LayerGradientSummary> sums_;  // sums until means()
    std::vector<std::string> order_;
};

}  // namespace ampscope
