#include "engine/MetricStream.h"

#include <algorithm>

namespace ampscope {

const char* engineEventName(EngineEvent::Kind kind) {
    switch (kind) {
        case EngineEvent::Kind::Started: return "started";
        case EngineEvent::Kind::EpochEnded: return "epoch";
        case EngineEvent::Kind::Paused: return "paused";
        case EngineEvent::Kind::Resumed: return "resumed";
        case EngineEvent::Kind::Finished: return "finished";
        case EngineEvent::Kind::Stopped: return "stopped";
        case EngineEvent::Kind::Error: return "error";
    }
    return "unknown";
}

MetricStream::MetricStream(size_t capacity, size_t recordCapacity)
    : capacity_(std::max<size_t>(capacity, 2)), recordCapacity_(std::max<size_t>(recordCapacity, 2)) {
    steps_.reserve(std::min<size_t>(capacity_, 4096));
}

void MetricStream::pushStep(const StepMetrics& metrics) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (steps_.size() >= capacity_) {
        // Drop the older half in one move rather than one element per push.
        const size_t drop = capacity_ / 2;
        steps_.erase(steps_.begin(), steps_.begin() + static_cast<std::ptrdiff_t>(drop));
        dropped_ += static_cast<int64_t>(drop);
    }
    steps_.push_back(metrics);
    lastStep_ = metrics.step;
}

void MetricStream::pushEvent(const EngineEvent& event) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(event);
}

void MetricStream::pushRecord(nlohmann::json record) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (records_.size() >= recordCapacity_) {
        const size_t drop = recordCapacity_ / 2;
        records_.erase(records_.begin(), records_.begin() + static_cast<std::ptrdiff_t>(drop));
        droppedRecords_ += static_cast<int64_t>(drop);
    }
    records_.push_back({std::move(record), lastStep_});
}

DrainedMetrics MetricStream::drain() {
    DrainedMetrics out;
    std::lock_guard<std::mutex> lock(mutex_);
    out.steps.swap(steps_);
    out.events.swap(events_);
    out.records.swap(records_);
    out.droppedRecords = droppedRecords_;
    droppedRecords_ = 0;
    out.droppedSteps = dropped_;
    dropped_ = 0;
    return out;
}

}  // namespace ampscope
