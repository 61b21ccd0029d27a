#pragma once
// ReportBandDigest: which runs of a report get pages of their own when the report holds a
// band of many runs of one config (a job's ranks, or 8 or more seeds of one config), and
// the one paragraph and table that account for the other members.
//
// Why: the set pages already draw such a band as one band with its named outliers
// (ReportSetViews); one section per member after them would be 512 sections for a
// 512-rank job, the same pages 512 times over with numbers a little apart. What a reader
// needs of the members that behave alike is how many they are, that they are alike, and
// the spread of their results; what each outlier did is worth its own pages.
//
// Contract:
// - reportSections(set, ids): ids are the report's runs in its order. The bands are
//   RunBands' (runBandsOf: core's ManyRuns rule for who forms a band and who is an
//   outlier; nothing is decided here a second time). A band's representative (its first
//   member in the report's order: rank 0 of a job, the first seed) and its named outliers
//   (at most RunBand::kNamedOutliers) keep their sections; the band's other members are
//   accounted for by the digest. A run in no band keeps its section.
// - ownSection[i] says whether run i gets its pages; sections come in the report's order.
// - A digest's "rest" are the members without pages, in the report's order; moreOutliers
//   of them are outliers past the named ones (RunBands names at most six), the others are
//   within the band.
// - bandDigestHtml: "<h3>" heading, the paragraph and the table (members, who has pages
//   and why, the range of the rest's final train loss and, where recorded, validation
//   accuracy, the median of their median step times, where their run folders are).
#include <QString>
#include <cstddef>
#include <utility>
#include <vector>

#include "report/ReportRun.h"
#include "runset/RunBands.h"

namespace ampscope::ui {

class RunSet;

struct ReportBandDigest {
    RunBand band;
    // Report indices of the representative and the named outliers, ascending, each with why
    // it has pages ("first non-finite, at step 50", "the first of the band, standing for it").
    std::vector<std::pair<std::size_t, QString>> withPages;
    std::vector<std::size_t> rest;       // report indices of the members accounted for in the digest
    std::vector<double> restMedianStepMs;  // each of `rest`'s median step time (NaN: unknown)
};

struct ReportSections {
    std::vector<bool> ownSection;  // per report run
    std::vector<ReportBandDigest> digests;
};

ReportSections reportSections(const RunSet& set, const std::vector<RunId>& ids);

namespace report_text {
QString bandDigestHtml(const ReportBandDigest& digest, const std::vector<ReportRun>& runs);
}

}  // namespace ampscope::ui
