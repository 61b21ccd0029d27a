#include "runset/UpdateSeries.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"
#include "probes/ProbeRecords.h"

namespace ampscope::ui {

void UpdateSeries::beginRun(const RunContext& context) {
    (void)context;
    malformed_.clear();
    layers_.clear();
    measuredLost_ = false;
    lastStep_ = 0.0;
    noteChange(RunChange::Updates);
}

void UpdateSeries::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) != probe_record_type::kUpdateRatio) return;
    const auto read = parsedRecord(record, updateRatioRecordFromJson, malformed_);
    if (!read) return;
    const LayerUpdateRatio& r = read->ratio;
    const QString name = QString::fromStdString(r.layer);
    auto it = std::find_if(layers_.begin(), layers_.end(), [&](const Layer& l) { return l.name == name; });
    if (it == layers_.end()) {
        layers_.emplace_back();
        layers_.back().name = name;
        it = std::prev(layers_.end());
    }
    const double step = static_cast<double>(read->step);
    if (std::isfinite(r.ratio)) it->ratio.append(step, r.ratio);
    if (r.measuredLoss()) {
        measuredLost_ = true;
        it->lostFraction.append(step, r.lostFraction());
    }
    lastStep_ = std::max(lastStep_, step);
    noteChange(RunChange::Updates);
}

}  // namespace ampscope::ui
