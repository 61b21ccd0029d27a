#include "views/SeedBandLabels.h"

#include <QCoreApplication>
#include <vector>

#include "runset/RunBandCandidates.h"
#include "runset/RunSet.h"
#include "stats/BandVerdicts.h"
#include "stats/SeedGroups.h"

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("SeedBandLabels", text); }

QString words(const std::string& text) { return QString::fromStdString(text); }

}  // namespace

std::map<RunId, SeedBandLabel> seedBandLabels(const RunSet& set) {
    std::map<RunId, SeedBandLabel> labels;
    // In the set's order, not focus order: the reference stays put while the focus moves.
    std::vector<const RunModel*> shown;
    for (const RunModel* run : set.runs())
        if (set.isShown(run->id())) shown.push_back(run);
    const std::vector<stats::BandCandidate> candidates = bandCandidatesOf(shown);
    const stats::BandVerdicts verdicts = stats::bandVerdicts(candidates);
    if (verdicts.reference.empty() || verdicts.valLoss.count < stats::kMinimumSeeds) return labels;

    const std::string referenceName =
        stats::seedGroupName(candidates[verdicts.reference.front()].config.value("name", std::string()),
                             candidates[verdicts.reference.front()].name);
    const QString reference = tr("Against the seed band of %1 (%2 seeds' final validation loss and accuracy): %3")
                                  .arg(words(referenceName))
                                  .arg(verdicts.valLoss.count)
                                  .arg(QString::fromLatin1(stats::kSeedBandRule));
    for (const stats::ComparedVerdict& verdict : verdicts.compared) {
        if (verdict.valLoss.label == stats::Label::NoBand) continue;
        QString text = tr("val loss %1").arg(words(stats::gapWords(verdict.valLoss, verdict.welch)));
        if (verdict.valAccuracy.label != stats::Label::NoBand)
            text += tr("\naccuracy %1").arg(words(stats::gapWords(verdict.valAccuracy, verdict.welch)));
        const QString statusText =
            tr("seed band of %1: %2").arg(words(referenceName), QString(text).replace(QLatin1Char('\n'), QStringLiteral(", ")));
        const QString test =
            verdict.welch
                ? tr("This run's config, %1 seeds, against it: Welch's t-test, one-sided (higher loss, lower accuracy)")
                      .arg(verdict.runs.size())
                : tr("This run against it: two-sided, outside exactly when outside the band");
        for (std::size_t k = 0; k < verdict.runs.size(); ++k) {
            QString tip = reference + QLatin1Char('\n') + test;
            const std::string along = stats::outsideWords(verdict.outside[k]);
            if (!along.empty()) tip += tr("\nAlong the run: %1").arg(words(along));
            labels[shown[verdict.runs[k]]->id()] = {text, statusText, tip};
        }
    }
    return labels;
}

}  // namespace ampscope::ui
