#pragma once
// LockstepSeries: what a run in the set keeps of its "lockstep" records
// (core/probes/ComparisonRecords.h), for the Lock-step A/B dock: the loss difference
// A - B per step and, per layer (in the order first seen), the cosine between A's and
// B's unscaled parameter gradients on probe steps; non-finite values are left out.
#include <QString>
#include <string>
#include <utility>
#include <deque>

#include "runset/DecimatedSeries.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

class LockstepSeries : public RunStore {
public:
    void beginRun(const RunContext& context) override;
    void takeRecord(const nlohmann::json& record) override;

    const DecimatedSeries& lossDifference() const { return lossDiff_; }
    const std::deque<std::pair<std::string, DecimatedSeries>>& cosines() const { return cosines_; }
    const DecimatedSeries* cosine(const std::string& layer) const;
    const QString& runMode() const { return runMode_; }
    // The partner mode B: the config's lockstep.mode, or the records' when it has none.
    const QString& partnerMode() const { return partnerMode_; }
    double lastStep() const { return lastStep_; }
    double minCosine() const { return minCosine_; }
    double maxAbsDifference() const { return maxAbsDiff_; }

private:
    DecimatedSeries lossDiff_;
    // A deque: views draw these series by address, and a new layer must not move the others.
    std::deque<std::pair<std::string, DecimatedSeries>> cosines_;
    QString runMode_, partnerMode_;
    double lastStep_ = 0.0;
    double minCosine_ = 1.0;
    double maxAbsDiff_ = 0.0;
};

}  // namespace ampscope::ui
