#include "views/SeedBandLabels.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <vector>

#include "runset/RunSeedGroups.h"
#include "runset/RunSet.h"
#include "stats/SeedBand.h"

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("SeedBandLabels", text); }

// NaN until the run's first epoch ended.
double finalValidationLoss(const RunModel& run) {
    const std::vector<EpochMetrics>& epochs = run.steps().epochs();
    return epochs.empty() ? NAN : epochs.back().valLoss;
}

stats::SampleSummary finalValidationLosses(const std::vector<const RunModel*>& runs) {
    std::vector<double> values;
    for (const RunModel* run : runs) values.push_back(finalValidationLoss(*run));
    return stats::summarize(values);  // non-finite values left out
}

QString pValue(double p) { return QString::number(p, 'g', 2); }

QString toolTipOf(const QString& bandName, int seeds) {
    return tr("Against the seed band of %1 (%2 seeds' final validation loss): %3")
        .arg(bandName)
        .arg(seeds)
        .arg(QString::fromLatin1(stats::kSeedBandRule));
}

}  // namespace

std::map<RunId, SeedBandLabel> seedBandLabels(const RunSet& set) {
    std::map<RunId, SeedBandLabel> labels;
    const std::vector<RunSeedGroup> groups = shownSeedGroups(set);
    if (groups.empty()) return labels;
    const RunSeedGroup& band = groups.front();
    const stats::SampleSummary seeds = finalValidationLosses(band.runs);
    if (seeds.count < stats::kMinimumSeeds) return labels;

    for (std::size_t g = 1; g < groups.size(); ++g) {
        const stats::SampleSummary compared = finalValidationLosses(groups[g].runs);
        const stats::GapLabel label = stats::labelSeedsAgainstBand(compared, seeds, stats::Alternative::Greater);
        if (label.label == stats::Label::NoBand) continue;
        const SeedBandLabel text{
            tr("val loss %1 the seed band (Welch p = %2)")
                .arg(QString::fromLatin1(stats::labelName(label.label)), pValue(label.p)),
            toolTipOf(band.name, seeds.count) +
                tr("\nThis run's config, %1 seeds, against it: Welch's t-test, one-sided (higher loss)")
                    .arg(compared.count)};
        for (const RunModel* run : groups[g].runs) labels[run->id()] = text;
    }
    for (const RunModel* run : set.shownRuns()) {
        const bool grouped = std::any_of(groups.begin(), groups.end(),
                                         [run](const RunSeedGroup& group) { return group.contains(run->id()); });
        if (grouped) continue;
        const double value = finalValidationLoss(*run);
        if (!std::isfinite(value)) continue;
        const stats::GapLabel label = stats::labelRunAgainstBand(value, seeds);
        if (label.label == stats::Label::NoBand) continue;
        labels[run->id()] = {tr("val loss %1 the seed band (p = %2)")
                                 .arg(QString::fromLatin1(stats::labelName(label.label)), pValue(label.p)),
                             toolTipOf(band.name, seeds.count) +
                                 tr("\nThis run against it: two-sided, outside exactly when outside the band")};
    }
    return labels;
}

}  // namespace ampscope::ui
