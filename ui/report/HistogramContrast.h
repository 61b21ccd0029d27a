#pragma once
// Which gradient histograms differ most between the runs of a report: its side-by-side
// pages show those (same layer and kind in every run, one colour scale, one log2|g| axis).
//
// Contract:
// - HistogramTotals is a RunObserver that adds up a run's histograms over its probe steps,
//   per kind and layer (bounded: one histogram per kind and layer, whatever the run's
//   length).
// - rankContrasts(runs): every kind and layer that at least two runs recorded, with the
//   largest exponentDistance (probes/ExponentDistance.h: binades on the log2|g| axis)
//   between two of them and which two, largest first; ties in the kind order of
//   probe_kind (unscaled, scaled, activation) and then layer name. Pairs a distance
//   cannot be measured for (no mass on the axis) are left out.
#include <QString>
#include <map>
#include <utility>
#include <vector>

#include "runset/RunObserver.h"
#include "probes/ExponentHistogram.h"

namespace ampscope::ui {

class HistogramTotals : public RunObserver {
public:
    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void takeHistogram(const HistogramRecord& record) override;
    void endOfBatch() override {}

    // Keyed by (kind, layer), as the records name them.
    const std::map<std::pair<std::string, std::string>, ExponentHistogram>& totals() const { return totals_; }

private:
    std::map<std::pair<std::string, std::string>, ExponentHistogram> totals_;
};

struct HistogramContrast {
    QString kind;  // probe_kind's name
    QString layer;
    double binades = 0.0;
    int runA = 0, runB = 0;  // indexes into the runs given, runA < runB
};

std::vector<HistogramContrast> rankContrasts(const std::vector<const HistogramTotals*>& runs);

}  // namespace ampscope::ui
