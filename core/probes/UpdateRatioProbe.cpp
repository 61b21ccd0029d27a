#include "probes/UpdateRatioProbe.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "probes/ProbeReadout.h"

namespace ampscope {
namespace {

// Per-parameter slots: |dw|, |w|, numel, intended non-zero, lost.
constexpr int64_t kUpdateNorm = 0, kWeightNorm = 1, kNumel = 2, kIntended = 3, kLost = 4;

torch::Tensor parameterSlots(const torch::Tensor& before, const torch::Tensor& after,
                             const torch::Tensor& intended) {
    const auto b = before.detach();
    const auto a = after.detach();
    if (a.sizes() != b.sizes())
        throw std::invalid_argument("update ratio: parameter shape changed");
    const auto options = a.options().dtype(torch::kDouble);
    const auto delta = a.to(torch::kFloat) - b.to(torch::kFloat);
    const auto updateNorm = delta.norm().to(torch::kDouble);
    const auto weightNorm = b.to(torch::kFloat).norm().to(torch::kDouble);
    const auto numel = torch::full({}, static_cast<double>(a.numel()), options);
    torch::Tensor intendedCount, lostCount;
    if (intended.defined()) {
        const auto wanted = intended.detach().ne(0);
        intendedCount = wanted.sum(torch::kDouble);
        // Bit-for-bit unchanged in the stored dtype (NaN never equals, so never "lost").
        lostCount = wanted.logical_and(a.eq(b)).sum(torch::kDouble);
    } else {
        intendedCount = torch::full({}, -1.0, options);
        lostCount = torch::full({}, -1.0, options);
    }
    return torch::stack({updateNorm, weightNorm, numel, intendedCount, lostCount});
}

}  // namespace

std::vector<LayerUpdateRatio> measureUpdateRatios(const std::vector<torch::Tensor>& before,
                                                  const std::vector<torch::Tensor>& after,
                                                  const std::vector<torch::Tensor>& intendedDeltas,
                                                  const std::vector<size_t>& parameterLayers,
                                                  const std::vector<std::string>& layerNames) {
    if (before.size() != after.size() || parameterLayers.size() != after.size() ||
        (!intendedDeltas.empty() && intendedDeltas.size() != after.size()))
        throw std::invalid_argument("update ratio: one before/after/intended/layer per parameter");
    torch::NoGradGuard noGrad;
    ProbeReadout readout;
    for (size_t k = 0; k < after.size(); ++k)
        readout.add(parameterSlots(before[k], after[k],
                                   intendedDeltas.empty() ? torch::Tensor() : intendedDeltas[k]));
    readout.read();

    struct Sums {
        double update2 = 0, weight2 = 0;
        int64_t numel = 0, intended = 0, lost = 0;
        bool measured = true;
    };
    std::map<size_t, Sums> byLayer;
    for (size_t k = 0; k < after.size(); ++k) {
        const double* s = readout.data(k);
        Sums& sums = byLayer[parameterLayers[k]];
        sums.update2 += s[kUpdateNorm] * s[kUpdateNorm];
        sums.weight2 += s[kWeightNorm] * s[kWeightNorm];
        sums.numel += static_cast<int64_t>(s[kNumel]);
        if (s[kIntended] < 0) sums.measured = false;
        sums.intended += static_cast<int64_t>(s[kIntended]);
        sums.lost += static_cast<int64_t>(s[kLost]);
    }
    std::vector<LayerUpdateRatio> out;
    for (const auto& [index, sums] : byLayer) {
        LayerUpdateRatio r;
        r.layerIndex = static_cast<int64_t>(index);
        r.layer = index < layerNames.size() ? layerNames[index] : "layer" + std::to_string(index);
        r.updateNorm = std::sqrt(sums.update2);
        r.weightNorm = std::sqrt(sums.weight2);
        r.ratio = updateRatioOf(r.updateNorm, r.weightNorm);
        r.numel = sums.numel;
        if (sums.measured) {
            r.intendedNonZero = sums.intended;
            r.lost = sums.lost;
        }
        out.push_back(std::move(r));
    }
    return out;
}

UpdateRatioProbe::UpdateRatioProbe(std::vector<std::string> layerNames,
                                   std::vector<size_t> parameterLayers)
    : layerNames_(std::move(layerNames)), parameterLayers_(std::move(parameterLayers)) {}

void UpdateRatioProbe::captureBefore(const std::vector<torch::Tensor>& parameters) {
    if (parameters.size() != parameterLayers_.size())
        throw std::invalid_argument("update ratio: parameter count differs from the layer map");
    torch::NoGradGuard noGrad;
    before_.clear();
    intended_.clear();
    for (const auto& p : parameters) before_.push_back(p.detach().clone());
}

void UpdateRatioProbe::captureIntended(const std::vector<torch::Tensor>& parameters) {
    if (!captured()) throw std::logic_error("update ratio: captureIntended before captureBefore");
    if (parameters.size() != before_.size())
        throw std::invalid_argument("update ratio: parameter count changed");
    torch::NoGradGuard noGrad;
    intended_.clear();
    for (size_t k = 0; k < parameters.size(); ++k)
        intended_.push_back(parameters[k].detach().to(torch::kFloat) -
                            before_[k].to(torch::kFloat));
}

void UpdateRatioProbe::setIntendedDelta(std::vector<torch::Tensor> deltas) {
    if (deltas.size() != parameterLayers_.size())
        throw std::invalid_argument("update ratio: one intended delta per parameter");
    intended_ = std::move(deltas);
}

std::vector<LayerUpdateRatio> UpdateRatioProbe::measure(
    const std::vector<torch::Tensor>& parameters) {
    if (!captured()) throw std::logic_error("update ratio: measure before captureBefore");
    auto out = measureUpdateRatios(before_, parameters, intended_, parameterLayers_, layerNames_);
    discard();
    return out;
}

void UpdateRatioProbe::discard() {
    before_.clear();
    intended_.clear();
}

}  // namespace ampscope
