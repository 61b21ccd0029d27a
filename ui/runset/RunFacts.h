#pragma once
// Plain facts about how a config will run, for the status bar, captions and plots.
// No torch: they use core's torch-free helpers only.
#include <string>

#include "config/RunConfig.h"
#include "precision/PrecisionMode.h"

namespace ampscope::ui {

// Which loss scaler a config actually runs: "dynamic" | "static" | "off". Mirrors the
// engine's resolution of precision.scaler.kind (Trainer.cpp, resolveScalerKind, which
// sits behind torch headers): "auto" means dynamic for fp16 and off for every other mode.
std::string resolvedScalerKind(const PrecisionConfig& precision);

// Would the run use CUDA? device "cuda" always asks for it; "auto" takes it when present.
bool runsOnCuda(const RunConfig& config);

// How the config's precision mode runs on that device (real or emulated, one line).
// An unknown mode (the config is invalid) reads as not emulated, "unknown mode".
ModeExecution executionFor(const RunConfig& config);

// "CPU: Intel(R) Xeon(R) ..." or "CUDA device 0".
std::string deviceText(const RunConfig& config);

// Threads the engine will use: config.threads, or all cores when 0.
int threadsFor(const RunConfig& config);

// Was the run recorded from a user's PyTorch process (python/ampscope) rather than run
// by the engine? The recorder's run_info.precision.execution opens with
// record_source::kRecordedExecution (EventSchema.h), the one line the badge is given.
bool isRecordedExecution(const std::string& how);


}  // namespace ampscope::ui
