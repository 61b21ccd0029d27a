#pragma once
// FormatQuantHistory: what a run in the set keeps, for the Scaling and Block scales docks, of its
// `format_quant` records (core/probes/FormatQuantRecord.h): per rounding point (layer x
// operand x direction) one measurement per probe step, in a ProbeSeriesStore (bounded,
// thinned by its rule, weighing a step by the fractions saturated and underflowed), and
// the points in model order for the docks' choosers.
//
// Contract:
// - take(record) parses with formatQuantRecordFromJson and files it under its point; a record of a step before the point's
//   last one is a replay and is dropped. Returns whether the record was kept.
// - takeRunInfo orders layers as run_info lists them (LayerOrder).
// - A record that does not read is skipped and counted (runset/ParsedRecord.h).
// - points(): keys in layer order, then forward before backward, then input, weight,
//   output. label(key): "fc1: input (forward)".
#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json_fwd.hpp>

#include "probes/FormatQuantRecord.h"
#include "runset/RunStore.h"
#include "runset/LayerOrder.h"
#include "runset/ProbeSeriesStore.h"

namespace ampscope::ui {

class FormatQuantHistory : public RunStore {
public:
    // RunStore: run_info orders the layers, format_quant records are taken.
    void beginRun(const RunContext& context) override;
    void takeRunInfo(const RunInfoRecord& info) override;
    void takeRecord(const nlohmann::json& record) override;

    using Series = ProbeSeriesStore<FormatQuantMeasurement>;
    static constexpr std::size_t kMaxKeptProbeSteps = 2048;

    void clear();
    bool take(const nlohmann::json& record);

    // Point keys ("layer\x1foperand\x1fdirection"), ordered as in the contract.
    QStringList points() const;
    static QString keyOf(const FormatQuantMeasurement& point);
    static QString label(const QString& key);
    const Series* series(const QString& key) const;
    bool empty() const { return series_.empty(); }

private:
    LayerOrder layers_;
    std::map<QString, Series> series_;
};

}  // namespace ampscope::ui
