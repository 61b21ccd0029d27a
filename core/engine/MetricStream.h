#pragma once
// MetricStream: how the engine thread hands metrics to a consumer (the UI's
// 30 Hz timer, the CLI's progress loop) without ever blocking training.
// - Step metrics go into a swap buffer under a short lock; drain() swaps it out.
//   The buffer is bounded: when a consumer does not drain, the oldest steps are
//   dropped (and counted); the run directory still has every step.
// - Lifecycle events are queued in order and never dropped (they are rare).
// - Records: every run-directory record other than "step" (run_info, epochs,
//   probe results, scale changes, non-finite events, lock-step and shadow
//   results), as written to events.jsonl, so that a live view reads exactly what
//   it would read from the run directory. Each carries the number of the last
//   step pushed before it, so a consumer can put steps and records back in the
//   order the run directory has them. Bounded like the steps: when a consumer
//   does not drain, the oldest half is dropped and counted.
// Thread-safe: one producer, any number of drain() callers.
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/EngineEvent.h"
#include "engine/StepMetrics.h"

namespace ampscope {

// A record as the run directory got it, and where it stands among the steps: after
// step `afterStep` (0: before the first step).
struct StreamedRecord {
    nlohmann::json record;
    int64_t afterStep = 0;
};

struct DrainedMetrics {
    std::vector<StepMetrics> steps;
    std::vector<EngineEvent> events;
    std::vector<StreamedRecord> records;  // in the order they were written
    int64_t droppedSteps = 0;             // dropped since the last drain
    int64_t droppedRecords = 0;           // dropped since the last drain

    // Nothing at all since the last drain. Defined here, next to the fields, so that a
    // consumer deciding whether a drain is worth delivering cannot forget one (a drain
    // holding only records, e.g. a fault recorded while a slow step runs, is not empty).
    bool empty() const {
        return steps.empty() && events.empty() && records.empty() && droppedSteps == 0 && droppedRecords == 0;
    }
};

class MetricStream {
public:
    explicit MetricStream(size_t capacity = 1 << 16, size_t recordCapacity = 1 << 14);

    void pushStep(const StepMetrics& metrics);
    void pushEvent(const EngineEvent& event);
    void pushRecord(nlohmann::json record);

    DrainedMetrics drain();

private:
    std::mutex mutex_;
    size_t capacity_;
    std::vector<StepMetrics> steps_;
    std::vector<EngineEvent> events_;
    size_t recordCapacity_;
    std::vector<StreamedRecord> records_;
    int64_t droppedRecords_ = 0;
    int64_t dropped_ = 0;
    int64_t lastStep_ = 0;  // the step number of the last step pushed
};

}  // namespace ampscope
