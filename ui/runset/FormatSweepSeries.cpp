#include "runset/FormatSweepSeries.h"

#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"
#include "probes/ProbeRecords.h"
#include "run/EventSchema.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope::ui {

namespace {

double lostToFormats(const FormatSweepSeries::StepSweep& step) {
    double sum = 0.0;
    for (const auto& [layer, formats] : step)
        for (const auto& [format, record] : formats) sum += record.underflowFraction() + record.saturatedFraction();
    return sum;
}

}  // namespace

void FormatSweepSeries::beginRun(const RunContext& context) {
    (void)context;
    malformed_.clear();
    layers_.clear();
    data_.clear();
    formats_.clear();
    noteChange(RunChange::FormatSweep);
}

void FormatSweepSeries::takeRunInfo(const RunInfoRecord& info) {
    if (layers_.takeRunInfo(info.layers)) noteChange(RunChange::FormatSweep);
}

void FormatSweepSeries::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) != probe_record_type::kFormatSweep) return;
    auto read = parsedRecord(record, formatSweepRecordFromJson, malformed_);
    if (!read) return;
    const FormatSweepRecord& parsed = *read;
    TensorData& d =
        data_.try_emplace(QString::fromStdString(parsed.tensor), kMaxKeptSweepSteps, lostToFormats).first->second;
    StepSweep* step = d.entryFor(parsed.step);
    if (!step) return;  // an older step: a replay
    const QString layer = QString::fromStdString(parsed.layer);
    const QString format = QString::fromStdString(parsed.format);
    (*step)[layer][format] = parsed;
    layers_.add(layer);
    if (!formats_.contains(format)) formats_ << format;
    noteChange(RunChange::FormatSweep);
}

const FormatSweepSeries::TensorData* FormatSweepSeries::data(const QString& tensor) const {
    const auto it = data_.find(tensor);
    return it == data_.end() ? nullptr : &it->second;
}

}  // namespace ampscope::ui
