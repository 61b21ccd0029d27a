#pragma once
// Helpers shared by the suites that train a run and read its directory back.
#include <QtCore/QTemporaryDir>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/Engine.h"
#include "run/RunReader.h"

namespace ampscope::test {

// The small run the probe and locator suites train: spirals (384 training points,
// 128 validation), an MLP [16, 16] (fc1 act1 fc2 act2 out), one epoch of 12 steps of
// 32, one engine thread, probes every 2 steps.
inline RunConfig spiralsMlp(const std::string& mode = "fp32") {
    RunConfig c;
    c.threads = 1;
    c.data.dataset = "spirals";
    c.data.synthetic_samples = 512;
    c.data.validation = "split";
    c.data.val_fraction = 0.25;
    c.model.name = "mlp";
    c.model.hidden = {16, 16};
    c.precision.mode = mode;
    c.train.epochs = 1;
    c.train.batch_size = 32;
    c.probes.every = 2;
    return c;
}

// Trains config to its end, recording into tmp/name, and reads the directory back.
inline RunData runAndRead(const RunConfig& config, QTemporaryDir& tmp, const char* name) {
    const std::string dir = tmp.filePath(name).toStdString();
    Engine engine(config, dir);
    engine.start();
    engine.wait();
    return readRunDirectory(dir);
}

// The run's records of one type, in file order.
inline std::vector<nlohmann::json> recordsOf(const RunData& run, const std::string& type) {
    std::vector<nlohmann::json> out;
    for (const auto& r : run.events)
        if (r.value("type", "") == type) out.push_back(r);
    return out;
}

// The training loss of every step record.
inline std::vector<double> stepLosses(const RunData& run) {
    std::vector<double> losses;
    for (const auto& r : recordsOf(run, "step")) losses.push_back(r["loss"].get<double>());
    return losses;
}

}  // namespace ampscope::test
