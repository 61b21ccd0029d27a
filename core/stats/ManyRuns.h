#pragma once
// Many runs of one config drawn as one band: the ranks of a torch.distributed job, or more
// than a handful of seeds of one config. Past a handful, one line per run is unreadable
// (a 32-entry legend covers the plot; 512 lines are a solid area), and what a user asks of
// such a set is "what is typical, and who is not": the band per step, and its outliers.
//
// Which runs (manyRunGroups):
// - The ranks of one job: runs whose directory is JOB/rank-N (RunReader's rank
//   directories) with the same JOB folder, at least kManyRuns of them.
// - Seeds of one config (seedGroups, SeedGroups.h) of at least kManyRuns runs, among the
//   runs not already a job's ranks. A smaller seed group keeps its seed band
//   (SeedBand.h: mean +- t s sqrt(1 + 1/N)), which says more than quantiles of 3 values.
// - kManyRuns = 8: below 8 the 10% and 90% quantiles are the lowest and highest runs
//   themselves (a band with no more to it than the lines), and up to 7 runs a legend of
//   one entry per run still fits beside a plot at 1280x800; from 8 runs on, a 10-90% band
//   leaves at least one run out on either side at each step, and the legend would not fit.
// Groups are listed by their first member; each group's members ascend.
//
// The band (quantileBandSeries): per step, over the members that have a finite value at
// that step, the median and the 10% and 90% quantiles (kBandLowQuantile, kBandHighQuantile;
// linear interpolation between order statistics, NumPy's default: q-th quantile of sorted
// v[0..n-1] is v[floor(h)] + (h - floor(h)) (v[floor(h)+1] - v[floor(h)]), h = q (n - 1)).
// A step is a band point only when at least half of the members (and at least 2) have a
// finite value there: a step only a few reached (a rank that ran ahead, the extremes a
// thinned series kept) is no statement about the group.
//
// Its outliers (each named with its reason; the caller draws them as their own lines):
// - first non-finite: the member that went non-finite first (the caller's rule:
//   RunSet::firstNonFinite, which also knows which rank received it through the all-reduce).
// - stragglers (stragglers()): a member whose median step time exceeds kStragglerFactor
//   (1.5) times the median over the members of their median step times. Medians, so one
//   slow step (a checkpoint, the first step's allocations) makes no straggler.
// - departing (departure()): a member whose (smoothed) value is outside the band widened by
//   its own width on each side, [low - w, high + w], w = high - low, at consecutive band
//   points spanning at least kDepartureShare (10%) of the band's points and at least
//   kDepartureMinPoints (3). Outside the 10-90% band alone is what 20% of the members are at
//   any step; a band width beyond it, for a tenth of the run, is a rank that left the group.
// No torch, no Qt.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/SeedBand.h"

namespace ampscope::stats {

inline constexpr int kManyRuns = 8;
inline constexpr double kBandLowQuantile = 0.10;
inline constexpr double kBandHighQuantile = 0.90;
inline constexpr double kStragglerFactor = 1.5;
inline constexpr double kDepartureShare = 0.10;
inline constexpr int kDepartureMinPoints = 3;
// The band's rule in words, for a legend or a report (plain ASCII).
extern const char* const kManyRunsBandRule;

struct RunIdentity {
    std::string directory;  // the run's directory ("" when it has none: a live run)
    nlohmann::json config;  // config.json as a document (not an object: unknown)
};

enum class ManyRunKind { JobRanks, Seeds };

struct ManyRunGroup {
    ManyRunKind kind = ManyRunKind::JobRanks;
    std::vector<std::size_t> members;  // indices into the runs given, ascending
    std::string job;                   // JobRanks: the job folder's path
};

std::vector<ManyRunGroup> manyRunGroups(const std::vector<RunIdentity>& runs);
// The job folder of a rank directory (".../job/rank-3" -> ".../job"); "" when the directory
// is not named rank-N.
std::string jobOfDirectory(const std::string& directory);

// One member's series: steps ascending, values at them (sizes equal).
struct MemberSeries {
    const double* steps = nullptr;
    const double* values = nullptr;
    std::size_t size = 0;
};

struct QuantileBandPoint {
    int64_t step = 0;
    int members = 0;  // members with a finite value at this step
    double low = 0.0, median = 0.0, high = 0.0;
};

// The q-th quantile of sorted finite values (linear interpolation); NaN when empty.
double sortedQuantile(const std::vector<double>& sorted, double q);
std::vector<QuantileBandPoint> quantileBandSeries(const std::vector<MemberSeries>& members,
                                                  double lowQuantile = kBandLowQuantile,
                                                  double highQuantile = kBandHighQuantile);

// The median of the finite values; NaN when there is none.
double medianOf(std::vector<double> values);
// Indices of the members whose typical step time (their median, NaN: unknown) exceeds
// kStragglerFactor x the median of the known ones; with fewer than 2 known, none.
std::vector<std::size_t> stragglers(const std::vector<double>& memberMedianStepTimes,
                                    double factor = kStragglerFactor);

// The longest sustained stretch where `member` is outside the widened band (see above);
// nothing when none is long enough. The member's value at a band point is its value at
// that step (a member with no value there breaks a stretch).
std::optional<StepRange> departure(const std::vector<QuantileBandPoint>& band, const MemberSeries& member);

}  // namespace ampscope::stats
