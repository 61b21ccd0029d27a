#include "runset/RunFacts.h"

#include <stdexcept>

#include "engine/SystemInfo.h"
#include "engine/Versions.h"
#include "run/EventSchema.h"

namespace ampscope::ui {

std::string resolvedScalerKind(const PrecisionConfig& precision) {
    return ampscope::resolvedScalerKind(precision.mode, precision.scaler.kind);
}

bool runsOnCuda(const RunConfig& config) {
    if (config.device == "cuda") return true;
    if (config.device == "auto") {
        // Asking LibTorch is not free (it probes the driver); the answer does not change.
        static const bool available = cudaAvailable();
        return available;
    }
    return false;
}

ModeExecution executionFor(const RunConfig& config) {
    try {
        return describeExecution(config.precision, runsOnCuda(config));
    } catch (const std::exception&) {
        return {false, "unknown mode"};
    }
}

std::string deviceText(const RunConfig& config) {
    if (runsOnCuda(config)) return "CUDA device 0";
    static const std::string cpu = cpuModelName();
    return "CPU: " + cpu;
}

int threadsFor(const RunConfig& config) {
    return config.threads > 0 ? config.threads : hardwareThreads();
}

bool isRecordedExecution(const std::string& how) {
    return how.rfind(record_source::kRecordedExecution, 0) == 0;
}

}  // namespace ampscope::ui

