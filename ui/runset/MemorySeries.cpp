#include "runset/MemorySeries.h"

#include <algorithm>
#include <cmath>

#include "probes/ProbeRecords.h"
#include "probes/StepAuditRecords.h"
#include "run/RecordCodec.h"

namespace ampscope::ui {

namespace {
constexpr double kBytesPerMiB = 1024.0 * 1024.0;
}

void MemorySeries::beginRun(const RunContext& context) {
    (void)context;
    malformed_.clear();
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
    if (record_codec::typeOf(record) != probe_record_type::kMemory) return;
    const auto read = parsedRecord(record, memoryRecordFromJson, malformed_);
    if (!read) return;
    const MemoryUsage& usage = read->usage;
    const double step = static_cast<double>(read->step);
    append(rss_, step, static_cast<double>(usage.rssBytes));
    append(peakRss_, step, static_cast<double>(usage.peakRssBytes));
    if (usage.cudaPeakAllocatedBytes) append(cudaPeak_, step, static_cast<double>(*usage.cudaPeakAllocatedBytes));
    for (const auto& [dtype, count] : usage.activationBytes) {
        const double bytes = static_cast<double>(count);
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
