#pragma once
// One probed step of a linear model (no hidden layer) on tiny_gradients in emulated fp16,
// scaler off, from zero weights: the residual is then the whole (tiny) target, so most
// of the weight gradient lies below fp16's range and a flush count has something to
// count. The probe and shadow suites build it alike and compare their counts by hand.
#include <torch/torch.h>

#include "config/RunConfig.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "engine/ProbeSession.h"
#include "engine/Trainer.h"

namespace ampscope::test {

inline RunConfig tinyGradientsLinearFp16(int64_t shadowEvery = 0) {
    RunConfig config;
    config.data.dataset = "tiny_gradients";
    config.model.name = "mlp";
    config.model.hidden = {};
    config.precision.mode = "fp16";
    config.precision.scaler.kind = "off";
    config.probes.every = 1;
    config.probes.shadow_every = shadowEvery;
    return config;
}

// The trainer, its probe session and the first batch, with every weight set to zero.
struct TinyGradientsStep {
    explicit TinyGradientsStep(const RunConfig& runConfig)
        : config(runConfig),
          data(loadData(config.data, 0)),
          trainer((torch::manual_seed(0), config), data, c10::Device(c10::kCPU)),
          probes(trainer, config.probes, nullptr) {
        BatchIterator batches(data.train, 128, true, 0);
        batches.startEpoch(1);
        hasBatch = batches.next(x, y);
        torch::NoGradGuard noGrad;
        for (auto& p : trainer.parameters()) p.zero_();
    }

    RunConfig config;
    DataBundle data;
    Trainer trainer;
    ProbeSession probes;
    torch::Tensor x, y;
    bool hasBatch = false;
};

}  // namespace ampscope::test
