#pragma once
// RunBandCandidates: runs of a set as core's seed band verdicts take them
// (stats/BandVerdicts.h): the config document, the last epoch's validation loss and
// accuracy (NaN until the first epoch ended; accuracy NaN for regression) and the smoothed
// loss as the Loss view draws it (StepSeries, kept points only). The window's labels and a
// report's first page hand the same candidates to the same rule.
#include <vector>

#include "stats/BandVerdicts.h"

namespace ampscope::ui {

class RunModel;

stats::BandCandidate bandCandidateOf(const RunModel& run);
std::vector<stats::BandCandidate> bandCandidatesOf(const std::vector<const RunModel*>& runs);

}  // namespace ampscope::ui
