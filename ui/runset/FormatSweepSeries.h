#pragma once
// FormatSweepSeries: what a run in the set keeps of its "format_sweep" records
// (core/probes/ProbeRecords.md), for the Format sweep dock: per tensor ("gradient",
// "activation"), one sweep step at a time (layer -> format -> the record) in a
// ProbeSeriesStore of at most kMaxKeptSweepSteps (thinned by its rule, weighing a step by
// what the formats lost: underflowed and saturated fractions), the layers in model order
// and the formats in the order the records first named them.
#include <QString>
#include <QStringList>
#include <map>

#include "probes/FormatSweepRecord.h"
#include "runset/RunStore.h"
#include "runset/LayerOrder.h"
#include "runset/ProbeSeriesStore.h"

namespace ampscope::ui {

class FormatSweepSeries : public RunStore {
public:
    // One sweep step: layer -> format -> the record.
    using StepSweep = std::map<QString, std::map<QString, FormatSweepRecord>>;
    using TensorData = ProbeSeriesStore<StepSweep>;
    static constexpr std::size_t kMaxKeptSweepSteps = 512;

    void beginRun(const RunContext& context) override;
    void takeRunInfo(const RunInfoRecord& info) override;
    void takeRecord(const nlohmann::json& record) override;

    const TensorData* data(const QString& tensor) const;
    const LayerOrder& layers() const { return layers_; }
    const QStringList& formats() const { return formats_; }

private:
    LayerOrder layers_;
    std::map<QString, TensorData> data_;  // by tensor
    QStringList formats_;                 // first-seen order
};

}  // namespace ampscope::ui
