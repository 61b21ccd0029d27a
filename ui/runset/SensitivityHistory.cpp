#include "runset/SensitivityHistory.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "run/RecordCodec.h"

namespace ampscope::ui {

namespace {

// Two passes can be averaged when they list the same formats and layers, in order.
bool sameShape(const SensitivityRecord& a, const SensitivityRecord& b) {
    if (a.formats != b.formats || a.layers.size() != b.layers.size()) return false;
    for (std::size_t k = 0; k < a.layers.size(); ++k)
        if (a.layers[k].layer != b.layers[k].layer) return false;
    return true;
}

}  // namespace

void SensitivityHistory::beginRun(const RunContext& context) {
    (void)context;
    passes_.clear();
    mean_.reset();
    malformed_.clear();
    noteChange(RunChange::Sensitivity);
}

void SensitivityHistory::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) != probe_record_type::kSensitivity) return;
    auto pass = parsedRecord(record, sensitivityRecordFromJson, malformed_);
    if (!pass) return;
    if (!passes_.empty() && !sameShape(*pass, passes_.begin()->second)) {
        malformed_.note(std::string(probe_record_type::kSensitivity),
                        "its layers or formats differ from the run's earlier passes");
        return;
    }
    const int64_t step = pass->step;
    passes_[step] = std::move(*pass);
    while (passes_.size() > kMaxPasses) passes_.erase(passes_.begin());
    std::vector<SensitivityRecord> all;
    all.reserve(passes_.size());
    for (const auto& [s, r] : passes_) all.push_back(r);
    mean_ = combineSensitivity(all);
    noteChange(RunChange::Sensitivity);
}

const SensitivityRecord* SensitivityHistory::latest() const {
    return passes_.empty() ? nullptr : &passes_.rbegin()->second;
}

}  // namespace ampscope::ui
