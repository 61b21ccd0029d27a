#pragma once
// INTERNAL (includes torch). Measures per-layer update ratios (UpdateRatio.h)
// of one optimizer step. It costs a copy of the parameters, so the engine
// takes it on probe steps only:
//
//   if (probeStep) probe.captureBefore(parameters);  // before optimizer.step()
//   optimizer.step();
//   if (probeStep && pureEmulated) probe.captureIntended(parameters);  // fp32 result,
//   roundStoredWeights();                                              // before rounding
//   if (probeStep) ratios = probe.measure(parameters);  // one host copy; frees the copy
//
// Without captureIntended()/setIntendedDelta() only |dw|/|w| is measured
// (lost = -1). With it, an element is an intended update when its intended
// delta is non-zero, and lost when its stored weight is bit-for-bit unchanged.
// A skipped step (scaler found inf) measures as dw = 0; discard() instead if
// that is not wanted.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "probes/UpdateRatio.h"

namespace ampscope {

class UpdateRatioProbe {
public:
    // parameterLayers[k] is the index in layerNames of the layer owning parameter k.
    UpdateRatioProbe(std::vector<std::string> layerNames, std::vector<size_t> parameterLayers);

    void captureBefore(const std::vector<torch::Tensor>& parameters);
    // Intended deltas = parameters now (the optimizer's fp32 result) - before.
    void captureIntended(const std::vector<torch::Tensor>& parameters);
    // Intended deltas given directly (one per parameter, any floating dtype).
    void setIntendedDelta(std::vector<torch::Tensor> deltas);
    bool captured() const { return !before_.empty(); }
    // Ratios for every layer that owns parameters, in layer order; releases the capture.
    std::vector<LayerUpdateRatio> measure(const std::vector<torch::Tensor>& parameters);
    void discard();

private:
    std::vector<std::string> layerNames_;
    std::vector<size_t> parameterLayers_;
    std::vector<torch::Tensor> before_;
    std::vector<torch::Tensor> intended_;
};

// The same on tensors in hand: before/after (and optionally intended deltas,
// empty for none) per parameter. One host copy.
std::vector<LayerUpdateRatio> measureUpdateRatios(const std::vector<torch::Tensor>& before,
                                                  const std::vector<torch::Tensor>& after,
                                                  const std::vector<torch::Tensor>& intendedDeltas,
                                                  const std::vector<size_t>& parameterLayers,
                                                  const std::vector<std::string>& layerNames);

}  // namespace ampscope
