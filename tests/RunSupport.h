#pragma once
// Helpers shared by the suites that train a run and read its directory back.
#include <QtCore/QTemporaryDir>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/Engine.h"
#include "run/RunReader.h"

namespace ampscope::test {

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
