#include "runset/RunBandCandidates.h"

#include <cmath>

#include "config/ConfigJson.h"
#include "runset/RunModel.h"

namespace ampscope::ui {

stats::BandCandidate bandCandidateOf(const RunModel& run) {
    stats::BandCandidate candidate{run.name().toStdString(), configToJson(run.config()), NAN, NAN, {}};
    const std::vector<EpochMetrics>& epochs = run.steps().epochs();
    if (!epochs.empty()) {
        candidate.finalValLoss = epochs.back().valLoss;
        candidate.finalValAccuracy = epochs.back().valAccuracy;
    }
    const DecimatedSeries& smoothed = run.steps().smoothedLoss();
    candidate.smoothedLoss.reserve(smoothed.size());
    for (std::size_t i = 0; i < smoothed.size(); ++i)
        candidate.smoothedLoss.push_back({static_cast<int64_t>(smoothed.x(i)), smoothed.y(i)});
    return candidate;
}

std::vector<stats::BandCandidate> bandCandidatesOf(const std::vector<const RunModel*>& runs) {
    std::vector<stats::BandCandidate> candidates;
    candidates.reserve(runs.size());
    for (const RunModel* run : runs) candidates.push_back(bandCandidateOf(*run));
    return candidates;
}

}  // namespace ampscope::ui
