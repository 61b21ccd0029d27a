#include "views/MemoryRecord.h"
#include "probes/ProbeRecords.h"

#include <nlohmann/json.hpp>

namespace ampscope::ui {

namespace {

std::optional<double> bytesField(const nlohmann::json& record, const char* key) {
    const auto it = record.find(key);
    if (it == record.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

}  // namespace

std::optional<MemorySample> memorySampleFromRecord(const nlohmann::json& record) {
    if (!record.is_object()) return std::nullopt;
    const auto type = record.find("type");
    if (type == record.end() || !type->is_string() || type->get<std::string>() != probe_record_type::kMemory)
        return std::nullopt;
    const auto step = record.find("step");
    if (step == record.end() || !step->is_number_integer()) return std::nullopt;
    MemorySample sample;
    sample.step = step->get<int64_t>();
    sample.rssBytes = bytesField(record, "rss_bytes");
    sample.peakRssBytes = bytesField(record, "peak_rss_bytes");
    sample.cudaPeakAllocatedBytes = bytesField(record, "cuda_peak_allocated_bytes");
    const auto activations = record.find("activation_bytes");
    if (activations != record.end() && activations->is_object())
        for (const auto& [dtype, bytes] : activations->items())
            if (bytes.is_number()) sample.activationBytes.emplace_back(dtype, bytes.get<double>());
    return sample;
}

}  // namespace ampscope::ui
