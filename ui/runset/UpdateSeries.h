#pragma once
// UpdateSeries: what a run in the set keeps of its "update_ratio" records
// (core/probes/ProbeRecords.md), for the Updates dock: per layer (in the order first
// seen), at each probe step, how far the optimizer step moved it (|dw| / |w|) and, where
// the run measured it (pure fp16 modes), the fraction of the intended updates that were
// lost (the stored weight did not change: w + dw == w). Each a DecimatedSeries.
#include <QString>
#include <deque>

#include "runset/DecimatedSeries.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

class UpdateSeries : public RunStore {
public:
    struct Layer {
        QString name;
        DecimatedSeries ratio;         // update_norm / weight_norm (finite values)
        DecimatedSeries lostFraction;  // lost / intended_nonzero, where measured
    };

    void beginRun(const RunContext& context) override;
    void takeRecord(const nlohmann::json& record) override;

    // A deque: views draw these series by address, and a new layer must not move the others.
    const std::deque<Layer>& layers() const { return layers_; }
    bool measuredLostUpdates() const { return measuredLost_; }
    double lastStep() const { return lastStep_; }

private:
    std::deque<Layer> layers_;
    bool measuredLost_ = false;
    double lastStep_ = 0.0;
};

}  // namespace ampscope::ui
