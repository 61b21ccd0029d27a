#include "report/ReportBandDigest.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/ReportText.h"
#include "run/RunReader.h"
#include "runset/RunSet.h"
#include "stats/ManyRuns.h"

namespace ampscope::ui {

ReportSections reportSections(const RunSet& set, const std::vector<RunId>& ids) {
    ReportSections sections;
    sections.ownSection.assign(ids.size(), true);
    const auto indexOf = [&ids](RunId id) {
        return static_cast<std::size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
    };
    for (RunBand& band : runBandsOf(set, ids)) {
        ReportBandDigest digest;
        const RunId representative = band.members.front()->id();
        for (const RunModel* member : band.members) {
            const std::size_t i = indexOf(member->id());
            if (const BandOutlier* outlier = band.outlier(member->id())) {
                digest.withPages.push_back({i, outlier->why});
                continue;
            }
            if (member->id() == representative) {
                digest.withPages.push_back({i, QStringLiteral("the first of the band, standing for it")});
                continue;
            }
            sections.ownSection[i] = false;
            digest.rest.push_back(i);
            digest.restMedianStepMs.push_back(typicalStepMilliseconds(*member));  // the straggler rule's measure
        }
        std::sort(digest.withPages.begin(), digest.withPages.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        std::sort(digest.rest.begin(), digest.rest.end());
        digest.band = std::move(band);
        sections.digests.push_back(std::move(digest));
    }
    return sections;
}

namespace report_text {
namespace {

// "1-4, 6-10, 12": rank numbers ascending, runs of consecutive ranks as a range.
QString rankRanges(std::vector<long long> ranks) {
    std::sort(ranks.begin(), ranks.end());
    QStringList parts;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t end = i;
        while (end + 1 < ranks.size() && ranks[end + 1] == ranks[end] + 1) ++end;
        parts << (end == i ? QString::number(ranks[i]) : QStringLiteral("%1-%2").arg(ranks[i]).arg(ranks[end]));
        i = end + 1;
    }
    return parts.join(QStringLiteral(", "));
}

// Who the rest are: a job's ranks by number (a 512-rank job is a line, not 512 names);
// seeds by name up to a dozen, past that the first and the last.
QString restNames(const ReportBandDigest& digest, const std::vector<ReportRun>& runs) {
    if (digest.band.kind == stats::ManyRunKind::JobRanks) {
        std::vector<long long> ranks;
        for (const std::size_t i : digest.rest) ranks.push_back(rankOfDirectory(runs[i].directory.toStdString()));
        return QStringLiteral("ranks %1").arg(rankRanges(ranks));
    }
    constexpr std::size_t kListedSeeds = 12;
    QStringList names;
    for (const std::size_t i : digest.rest) names << runs[i].title;
    if (names.size() <= static_cast<qsizetype>(kListedSeeds)) return names.join(QStringLiteral(", "));
    return QStringLiteral("%1 \u2026 %2").arg(names.front(), names.back());
}

// The folder every one of the rest's directories is in (as the report names them: an
// ssh:// address for a remote copy); empty when they are not in one.
QString commonFolder(const ReportBandDigest& digest, const std::vector<ReportRun>& runs) {
    QString folder;
    for (const std::size_t i : digest.rest) {
        const QString& shown = runs[i].shownDirectory;
        const QString parent = shown.left(std::max<qsizetype>(shown.lastIndexOf(QLatin1Char('/')), 0));
        if (parent.isEmpty() || (!folder.isEmpty() && parent != folder)) return {};
        folder = parent;
    }
    return folder;
}

// "lo to hi (n of m recorded)" over the finite values; kUnknown when none is.
QString rangeText(const std::vector<std::optional<double>>& values, double scale, const QString& unit,
                  int significant) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    int known = 0;
    for (const std::optional<double>& v : values)
        if (v && std::isfinite(*v)) {
            lo = std::min(lo, *v * scale);
            hi = std::max(hi, *v * scale);
            ++known;
        }
    if (known == 0) return {};
    QString text = QStringLiteral("%1%3 to %2%3").arg(number(lo, significant), number(hi, significant), unit);
    if (known < static_cast<int>(values.size()))
        text += QStringLiteral(" (%1 of %2 recorded it)").arg(known).arg(values.size());
    return text;
}

}  // namespace

QString bandDigestHtml(const ReportBandDigest& digest, const std::vector<ReportRun>& runs) {
    const RunBand& band = digest.band;
    const QString noun = band.memberNoun();
    const int outliersAmongRest = band.moreOutliers;
    const int within = static_cast<int>(digest.rest.size()) - outliersAmongRest;

    QString html = QStringLiteral("<h3>%1: %2 %3 as one band</h3>").arg(esc(band.name)).arg(band.members.size()).arg(noun);
    QStringList paged;
    for (const auto& [i, why] : digest.withPages) paged << QStringLiteral("%1 (%2)").arg(runs[i].title, why);
    html += QStringLiteral("<p>The plots draw the %1 %2 as one band (%3). Pages of their own follow for %4.")
                .arg(band.members.size())
                .arg(noun, esc(QString::fromLatin1(stats::kManyRunsBandRule)), esc(paged.join(QStringLiteral("; "))));
    if (digest.rest.empty()) return html + QStringLiteral("</p>");
    html += QStringLiteral(" The other %1 %2 are accounted for here: ").arg(digest.rest.size()).arg(noun);
    if (outliersAmongRest == 0)
        html += QStringLiteral("every one of them is within the band (none is an outlier by the band's rules).</p>");
    else
        html += QStringLiteral("%1 are within the band; %2 more are outliers by the band's rules, past the %3 "
                               "named.</p>")
                    .arg(within)
                    .arg(outliersAmongRest)
                    .arg(RunBand::kNamedOutliers);

    std::vector<std::optional<double>> losses, accuracies;
    for (const std::size_t i : digest.rest) {
        losses.push_back(runs[i].results.finalTrainLoss);
        accuracies.push_back(runs[i].results.valAccuracy);
    }
    std::vector<QStringList> rows;
    rows.push_back({QStringLiteral("Accounted for here"),
                    QStringLiteral("%1 %2: %3").arg(digest.rest.size()).arg(noun, restNames(digest, runs))});
    const QString loss = rangeText(losses, 1.0, QString(), 5);
    rows.push_back({QStringLiteral("Final train loss"), loss.isEmpty() ? kUnknown : loss});
    if (const QString accuracy = rangeText(accuracies, 100.0, QStringLiteral(" %"), 4); !accuracy.isEmpty())
        rows.push_back({QStringLiteral("Val accuracy"), accuracy});
    const double stepMs = stats::medianOf(digest.restMedianStepMs);
    rows.push_back({QStringLiteral("Median step time"),
                    std::isfinite(stepMs) ? QStringLiteral("%1 ms (the median of each one's median step time)")
                                                .arg(number(stepMs, 3))
                                          : kUnknown});
    const QString folder = commonFolder(digest, runs);
    rows.push_back({QStringLiteral("Per-run detail"),
                    folder.isEmpty() ? QStringLiteral("in each one's run directory")
                                     : QStringLiteral("in their run folders in %1 (report one alone for its pages)")
                                           .arg(folder)});
    return html + table({QStringLiteral("The rest of the band"), QStringLiteral("Value")}, rows);
}

}  // namespace report_text
}  // namespace ampscope::ui
