#pragma once
// HistogramSeries: what a run in the set keeps of its gradient histograms ("histogram"
// records, core/probes/ProbeRecords.md), for the Gradient histograms dock and the Format
// explorer: per layer and kind, one histogram per probe step in a ProbeSeriesStore (at
// most kMaxKeptProbeSteps; when full it is thinned by the store's rule, weighing a step
// by its NaN/Inf elements, so the moments that went non-finite stay), the layers in model
// order, and the loss scale from each step where it changed (for the "limit ÷ scale"
// lines: thinned by the same rule with no weight).
//
// Contract:
// - kinds(): probe_kind's names in the dock's order; series(kind, layer) is null until a
//   record of that layer and kind came.
// - scaleAt(step): the scale of the latest change at or before `step` (1 before any).
// - A record of a step its series already has or is past is a replay: dropped.
#include <QString>
#include <QStringList>
#include <map>

#include "probes/ExponentHistogram.h"
#include "runset/RunStore.h"
#include "runset/LayerOrder.h"
#include "runset/ProbeSeriesStore.h"

namespace ampscope::ui {

class HistogramSeries : public RunStore {
public:
    using Series = ProbeSeriesStore<ExponentHistogram>;
    // A 10^6-step run costs what 2 x this many probe steps do; the run directory keeps them all.
    static constexpr std::size_t kMaxKeptProbeSteps = 1024;
    static constexpr std::size_t kMaxKeptScaleChanges = 65536;

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override;
    void takeRunInfo(const RunInfoRecord& info) override;
    void takeHistogram(const HistogramRecord& record) override;

    static QStringList kinds();
    const LayerOrder& layers() const { return layers_; }
    const Series* series(const QString& kind, const QString& layer) const;
    bool empty() const { return series_.empty(); }
    double scaleAt(int64_t step) const;
    double latestScale() const { return scaleChanges_.empty() ? 1.0 : scaleChanges_.back(); }
    int64_t lastStep() const { return lastStep_; }
    int64_t probesEvery() const { return probesEvery_; }

private:
    LayerOrder layers_;
    std::map<QString, Series> series_;  // key: kind + '/' + layer
    ProbeSeriesStore<double> scaleChanges_{kMaxKeptScaleChanges};
    int64_t lastStep_ = 0;
    int64_t probesEvery_ = 0;
};

}  // namespace ampscope::ui
