#pragma once
// MetricStream: how the engine thread hands metrics to a consumer (the UI's
// 30 Hz timer, the CLI's progress loop) without ever blocking training.
// - Step metrics go into a swap buffer under a short lock; drain() swaps it out.
//   The buffer is bounded: when a consumer does not drain, the oldest steps are
//   dropped (and counted); the run directory still has every step.
// - Lifecycle events are queued in order and never dropped (they are rare).
// - Snapshots (histograms, maps) go to a latest-only slot (older ones are
//   replaced; the run directory keeps them all).
// Thread-safe: one producer, any number of drain() callers.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/EngineEvent.h"
#include "engine/StepMetrics.h"

namespace ampscope {

struct Snapshot {
    virtual ~Snapshot() = default;
    int64_t step = 0;
};

struct DrainedMetrics {
    std::vector<StepMetrics> steps;
    std::vector<EngineEvent> events;
    std::shared_ptr<const Snapshot> snapshot;  // latest, or null if none since last drain
    int64_t droppedSteps = 0;                  // dropped since the last drain
};

class MetricStream {
public:
    explicit MetricStream(size_t capacity = 1 << 16);

    void pushStep(const StepMetrics& metrics);
    void pushEvent(const EngineEvent& event);
    void publishSnapshot(std::shared_ptr<const Snapshot> snapshot);

    DrainedMetrics drain();

private:
    std::mutex mutex_;
    size_t capacity_;
    std::vector<StepMetrics> steps_;
    std::vector<EngineEvent> events_;
    std::shared_ptr<const Snapshot> snapshot_;
    int64_t dropped_ = 0;
};

}  // namespace ampscope
