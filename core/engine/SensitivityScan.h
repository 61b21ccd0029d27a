#pragma once
// The sensitivity of a config's model (probes/SensitivityRecord.h): its layers' scores in
// each format after a short training, as `ampscope-cli sensitivity` measures them.
//
// The config is trained as `ampscope-cli run` trains it (its data, seed, device, model,
// precision mode and batches) for `steps` steps; the sensitivity pass measures the batch
// of every `every`-th step and of the last, and the passes are combined (scores are the
// mean over the passes: one batch's score is noisy). Nothing is recorded to a run
// directory; the caller writes the records. No torch in this header.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "probes/SensitivityRecord.h"

namespace ampscope {

struct SensitivityScanRequest {
    std::vector<std::string> formats;  // parseSensitivityFormats()
    int64_t steps = 0;                 // 0: the config's own length (epochs, train.max_steps)
    int64_t every = 0;                 // 0: a quarter of the steps, so four passes
};

struct SensitivityScan {
    std::vector<SensitivityRecord> passes;
    SensitivityRecord combined;
    int64_t steps = 0;           // steps trained
    double trainSeconds = 0.0;   // the training steps alone, without the passes
};

// onPass (may be empty) sees each pass as it ends. An invalid config, or a model
// without a matmul/conv layer, is an InputError naming it.
SensitivityScan scanSensitivity(const RunConfig& config, const SensitivityScanRequest& request,
                                const std::function<void(const SensitivityRecord&)>& onPass = {});

}  // namespace ampscope
