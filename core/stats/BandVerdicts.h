#pragma once
// BandVerdicts: every compared run of a set judged against one reference seed band, the
// rule the window's Runs list and status bar, a scenario's comparison.txt and a report's
// first page share (SeedBand.h holds the statistics, SeedGroups.h which runs are seeds).
//
// Contract:
// - The reference band: among the seed groups of the runs' configs (seedGroups), the first
//   whose config trains in fp32 (precision.mode "fp32": the usual reference, wherever it
//   sits in the list), else the first group. No group: no reference, nothing compared.
// - Compared: every other group as one (its seeds), and every run in no group on its own,
//   in the order of their first run.
// - At the end, for the final validation loss and the final validation accuracy each:
//   a group by Welch's t-test, one-sided toward the worse side chosen before looking
//   (loss Greater, accuracy Less); a single run by the two-sided prediction-interval test
//   (labelRunAgainstBand: "outside" exactly when the value is outside the band drawn).
//   A quantity the reference or the compared side lacks (regression runs have no
//   accuracy; a run that never validated) is Label::NoBand.
// - Along the run (only where the caller hands smoothed losses): for each compared run,
//   the step ranges where its smoothed loss leaves the reference's band of smoothed losses
//   (stepsOutsideBand).
// No torch, no Qt.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/SeedBand.h"

namespace ampscope::stats {

struct BandCandidate {
    std::string name;
    nlohmann::json config;  // the run's config.json document
    double finalValLoss = 0.0;       // NaN when the run has none
    double finalValAccuracy = 0.0;   // NaN when the run has none
    std::vector<StepValue> smoothedLoss;  // empty: no step ranges
};

struct ComparedVerdict {
    std::vector<std::size_t> runs;  // indices into the candidates: one run, or one config's seeds
    GapLabel valLoss, valAccuracy;
    bool welch = false;  // several seeds (Welch) rather than one run (prediction interval)
    std::vector<std::vector<StepRange>> outside;  // per run in `runs`
};

struct BandVerdicts {
    std::vector<std::size_t> reference;  // the band's seeds; empty: no band
    SampleSummary valLoss, valAccuracy;  // the band's seeds' final values
    std::vector<ComparedVerdict> compared;
};

BandVerdicts bandVerdicts(const std::vector<BandCandidate>& runs);

// Plain-text lines (no trailing newline): the reference, then one line per compared entry,
// e.g. "fp16 (3 seeds): val loss outside (Welch p = 0.012), val accuracy inside (Welch
// p = 0.21)", then per run that leaves the band "  fp16 seed 2: smoothed loss left the band
// ...". Empty without a band.
std::vector<std::string> bandVerdictLines(const BandVerdicts& verdicts, const std::vector<BandCandidate>& runs);

// "outside (Welch p = 0.012)", "inside (p = 0.4)", "no band": one quantity's words.
std::string gapWords(const GapLabel& label, bool welch);
// "smoothed loss left the band 3 times, longest at steps 120-450 (above)"; "" when it never
// left it. Longest by step span; each range's steps are band steps, inclusive.
std::string outsideWords(const std::vector<StepRange>& ranges);

}  // namespace ampscope::stats
