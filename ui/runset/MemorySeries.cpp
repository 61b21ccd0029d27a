#include "runset/MemorySeries.h"

#include <algorithm>
#include <cmath>

#include "views/MemoryRecord.h"

namespace ampscope::ui {

namespace {
constexpr double kBytesPerMiB = 1024.0 * 1024.0;
}

void MemorySeries::beginRun(const RunContext& context) {
    (void)context;
    rss_.clear();
    peakRss_.clear();
    cudaPeak_.clear();
    activations_.clear();
    maxMiB_ = 0.0;
    lastStep_ = 0.0;
    noteChange(RunChange::Memory);
}

void MemorySeries::append(DecimatedSeries& series, double step, double bytes) {
    if (!std::isfinite(bytes)) return;
    const double mib = bytes / kBytesPerMiB;
    series.append(step, mib);
    maxMiB_ = std::max(maxMiB_, mib);
    lastStep_ = std::max(lastStep_, step);
}

void MemorySeries::takeRecord(const nlohmann::json& record) {
    const auto sample = memorySampleFromRecord(record);
    if (!sample) return;
    const double step = static_cast<double>(sample->step);
    if (sample->rssBytes) append(rss_, step, *sample->rssBytes);
    if (sample->peakRssBytes) append(peakRss_, step, *sample->peakRssBytes);
    if (sample->cudaPeakAllocatedBytes) append(cudaPeak_, step, *sample->cudaPeakAllocatedBytes);
    for (const auto& [dtype, bytes] : sample->activationBytes) {
        auto it = std::find_if(activations_.begin(), activations_.end(),
                               [&](const auto& a) { return a.first == dtype; });
        if (it == activations_.end()) {
            activations_.emplace_back(dtype, DecimatedSeries());
            it = std::prev(activations_.end());
        }
        append(it->second, step, bytes);
    }
    noteChange(RunChange::Memory);
}

}  // namespace ampscope::ui
