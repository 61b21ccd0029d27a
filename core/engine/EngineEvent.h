#pragma once
// Rare lifecycle events of a run, delivered in order (never dropped).
#include <cstdint>
#include <string>

#include "engine/StepMetrics.h"

namespace ampscope {

struct EngineEvent {
    enum class Kind { Started, EpochEnded, Paused, Resumed, Finished, Stopped, Error };
    Kind kind = Kind::Started;
    int64_t step = 0;
    int64_t totalSteps = 0;   // Started: planned steps
    EpochMetrics epoch;       // EpochEnded
    std::string message;      // Started: one-line description; Error: what went wrong
    bool inputError = false;  // Error caused by bad input (config, data, output dir): CLI exit 2
};

const char* engineEventName(EngineEvent::Kind kind);

}  // namespace ampscope
