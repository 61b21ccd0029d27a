#pragma once
// MemorySeries: what a run in the set keeps of its "memory" records
// (probes/StepAuditRecords.h), for the Memory dock: process RSS and its peak, CUDA's peak
// allocated bytes (on CPU none), and the bytes of activations a step kept per dtype (in
// the order first named), all in MiB, each a DecimatedSeries. A record that does not
// read adds no point (runset/ParsedRecord.h).
#include <string>
#include <utility>
#include <deque>

#include "runset/DecimatedSeries.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

class MemorySeries : public RunStore {
public:
    void beginRun(const RunContext& context) override;
    void takeRecord(const nlohmann::json& record) override;

    const DecimatedSeries& rss() const { return rss_; }
    const DecimatedSeries& peakRss() const { return peakRss_; }
    const DecimatedSeries& cudaPeak() const { return cudaPeak_; }
    const std::deque<std::pair<std::string, DecimatedSeries>>& activations() const { return activations_; }
    double maxMiB() const { return maxMiB_; }
    double lastStep() const { return lastStep_; }
    bool empty() const { return maxMiB_ <= 0.0 && rss_.empty() && peakRss_.empty() && cudaPeak_.empty(); }

private:
    void append(DecimatedSeries& series, double step, double bytes);

    DecimatedSeries rss_, peakRss_, cudaPeak_;
    // A deque: views draw these series by address, and a new dtype must not move the others.
    std::deque<std::pair<std::string, DecimatedSeries>> activations_;
    double maxMiB_ = 0.0;
    double lastStep_ = 0.0;
};

}  // namespace ampscope::ui
