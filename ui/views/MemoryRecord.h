#pragma once
// The "memory" record of events.jsonl as the Memory plot reads it:
//   {"type":"memory","step":N,"rss_bytes":..,"peak_rss_bytes":..,
//    "cuda_peak_allocated_bytes":null|..,"activation_bytes":{"float32":..,...}}
// Tolerant by design (the record is young): a field that is missing, null or not a
// number is absent in the sample; only "type" and an integer "step" are required.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ampscope::ui {

struct MemorySample {
    int64_t step = 0;
    std::optional<double> rssBytes;
    std::optional<double> peakRssBytes;
    std::optional<double> cudaPeakAllocatedBytes;
    std::vector<std::pair<std::string, double>> activationBytes;  // by dtype, as listed
};

// nullopt when the record is not a memory record or has no integer step.
std::optional<MemorySample> memorySampleFromRecord(const nlohmann::json& record);

}  // namespace ampscope::ui
