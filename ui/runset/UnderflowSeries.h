#pragma once
// UnderflowSeries: what a run in the set keeps of its fp16 class counts ("underflow"
// records with multiplier 1, core/probes/ProbeRecords.md; the "what if" records of other
// multipliers are not kept), for the Underflow dock and reports: per tensor kind, what
// each layer reported at each probe step, in a ProbeSeriesStore (at most
// kMaxKeptProbeSteps steps; when full it is thinned by the store's rule, weighing a step
// by how much fp16 lost there: flushed, subnormal, overflowed and non-finite fractions
// over all layers, so the worst moments stay in view).
//
// Contract:
// - data(kind) is null until a record of that kind came; layersWithData(kind) lists its
//   layers in the order first seen; layers() is the model order (run_info first).
// - emulated(): run_info said fp16 is emulated (only then are activation counts taken).
#include <QString>
#include <QStringList>
#include <map>

#include "probes/Fp16Classes.h"
#include "runset/RunStore.h"
#include "runset/LayerOrder.h"
#include "runset/ProbeSeriesStore.h"

namespace ampscope::ui {

class UnderflowSeries : public RunStore {
public:
    // What each layer reported at one probe step.
    using StepCounts = std::map<QString, Fp16ClassCounts>;
    using KindData = ProbeSeriesStore<StepCounts>;
    static constexpr std::size_t kMaxKeptProbeSteps = 2048;

    void beginRun(const RunContext& context) override;
    // Only the last step: a map's x axis spans the run, not just its probe steps.
    void appendSteps(const std::vector<StepMetrics>& steps) override;
    void takeRunInfo(const RunInfoRecord& info) override;
    void takeUnderflow(const UnderflowRecord& record) override;

    const KindData* data(const QString& kind) const;
    QStringList layersWithData(const QString& kind) const;
    const LayerOrder& layers() const { return layers_; }
    bool empty() const { return data_.empty(); }
    bool emulated() const { return emulated_; }
    int64_t probesEvery() const { return probesEvery_; }
    int64_t lastStep() const { return lastStep_; }

private:
    LayerOrder layers_;
    std::map<QString, KindData> data_;               // by record kind
    std::map<QString, QStringList> layersWithData_;  // by record kind, first seen order
    int64_t lastStep_ = 0;
    int64_t probesEvery_ = 0;
    bool emulated_ = false;
};

}  // namespace ampscope::ui
