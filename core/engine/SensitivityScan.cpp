#include "engine/SensitivityScan.h"

#include <algorithm>
#include <chrono>

#include "common/InputError.h"
#include "config/ConfigValidation.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "engine/CpuBlockCache.h"
#include "engine/DeviceMemory.h"
#include "engine/SensitivityPass.h"
#include "engine/SystemInfo.h"
#include "engine/Trainer.h"

namespace ampscope {

SensitivityScan scanSensitivity(const RunConfig& config, const SensitivityScanRequest& request,
                                const std::function<void(const SensitivityRecord&)>& onPass) {
    throwIfInvalid(config);
    SensitivityPass pass(request.formats);
    // As the engine starts a run: threads, seed, device, data, model, batches.
    at::set_num_threads(config.threads > 0 ? config.threads : hardwareThreads());
    cpu_block_cache::install();  // the twins' large blocks reused, not page-faulted in each pass
    torch::manual_seed(config.seed);
    const c10::Device device = pickDevice(config.device);
    const DataBundle data = loadData(config.data, config.seed);
    Trainer trainer(config, data, device);
    BatchIterator batches(data.train, config.train.batch_size, true, config.seed);

    if (batches.batchesPerEpoch() == 0) throw InputError("data: no training sample to train on");
    int64_t total = batches.batchesPerEpoch() * config.train.epochs;
    if (config.train.max_steps > 0) total = std::min(total, config.train.max_steps);
    if (request.steps > 0) total = request.steps;
    const int64_t every = request.every > 0 ? request.every : std::max<int64_t>(1, (total + 3) / 4);

    SensitivityScan scan;
    using Clock = std::chrono::steady_clock;
    torch::Tensor x, y;
    for (int64_t epoch = 1; scan.steps < total; ++epoch) {
        batches.startEpoch(epoch);
        while (scan.steps < total && batches.next(x, y)) {
            const auto start = Clock::now();
            trainer.step(x, y);
            scan.trainSeconds += std::chrono::duration<double>(Clock::now() - start).count();
            ++scan.steps;
            if (scan.steps % every != 0 && scan.steps != total) continue;
            SensitivityRecord record = pass.measure(trainer, scan.steps);
            if (record.layers.empty())
                throw InputError("model: " + config.model.name + " has no matmul or conv layer to quantize");
            if (onPass) onPass(record);
            scan.passes.push_back(std::move(record));
        }
    }
    scan.combined = combineSensitivity(scan.passes);
    return scan;
}

}  // namespace ampscope
