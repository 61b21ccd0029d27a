#include "RunFacts.h"

#include <stdexcept>

#include "engine/SystemInfo.h"
#include "engine/Versions.h"
#include "probes/NonFiniteText.h"
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
        return describeExecution(parsePrecisionMode(config.precision.mode), runsOnCuda(config),
                                 emulationForced(config.precision.emulate));
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

namespace ampscope::ui {

std::string firstOperatorText(const NonFiniteEvent& event) {
    if (event.op.empty()) return {};
    // core words the op inside its one sentence; the sentence without the op tells which
    // part that is.
    NonFiniteEvent without = event;
    without.op.clear();
    const std::string full = describeFirstNonFinite(event);
    const std::string base = describeFirstNonFinite(without);
    if (full.size() <= base.size()) return event.op;
    const std::size_t length = full.size() - base.size();
    const std::string lead = "; first op ";
    // Where the op part went in: the same text before and after it, and it opens with
    // the lead (which the text after it may also open like: "; found by ...").
    for (std::size_t at = 0; at <= base.size(); ++at) {
        if (full.compare(0, at, base, 0, at) != 0) break;
        if (full.compare(at + length, std::string::npos, base, at, std::string::npos) != 0) continue;
        if (length >= lead.size() && full.compare(at, lead.size(), lead) == 0)
            return full.substr(at + lead.size(), length - lead.size());
    }
    return event.op;
}

}  // namespace ampscope::ui
