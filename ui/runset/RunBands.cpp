#include "runset/RunBands.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "config/ConfigJson.h"
#include "runset/BandMemberPoints.h"
#include "runset/RunSeedGroups.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

bool RunBand::contains(RunId id) const {
    return std::any_of(members.begin(), members.end(), [id](const RunModel* run) { return run->id() == id; });
}

const BandOutlier* RunBand::outlier(RunId id) const {
    for (const BandOutlier& o : outliers)
        if (o.run->id() == id) return &o;
    return nullptr;
}

QString RunBand::memberNoun() const {
    return kind == stats::ManyRunKind::JobRanks ? QObject::tr("ranks") : QObject::tr("seeds");
}

bool RunBand::sameDrawing(const RunBand& other) const {
    if (members != other.members || outliers.size() != other.outliers.size() || moreOutliers != other.moreOutliers)
        return false;
    for (std::size_t i = 0; i < outliers.size(); ++i)
        if (outliers[i].run != other.outliers[i].run || outliers[i].why != other.outliers[i].why) return false;
    return true;
}

namespace {

std::vector<RunBand> bandMembersOf(const std::vector<const RunModel*>& shown) {
    std::vector<stats::RunIdentity> identities;
    identities.reserve(shown.size());
    for (const RunModel* run : shown) {
        const std::string directory = run->directory().toStdString();
        // A rank's config is not needed to group it (its job folder is), and a job of 512
        // ranks would otherwise serialize 512 configs at every change of the shown runs.
        identities.push_back({directory, stats::jobOfDirectory(directory).empty() ? configToJson(run->config())
                                                                                  : nlohmann::json()});
    }
    std::vector<RunBand> bands;
    for (const stats::ManyRunGroup& group : stats::manyRunGroups(identities)) {
        RunBand band;
        band.kind = group.kind;
        for (const std::size_t i : group.members) band.members.push_back(shown[i]);
        band.name = group.kind == stats::ManyRunKind::JobRanks ? QFileInfo(QString::fromStdString(group.job)).fileName()
                                                                : seedGroupName(*band.members.front());
        if (band.name.isEmpty()) band.name = QString::fromStdString(group.job);
        bands.push_back(std::move(band));
    }
    return bands;
}

}  // namespace

std::vector<RunBand> shownBandMembers(const RunSet& set) {
    std::vector<const RunModel*> shown;
    for (const RunModel* run : set.runs())
        if (set.isShown(run->id())) shown.push_back(run);
    return bandMembersOf(shown);
}

namespace {

void addReason(RunBand& band, const RunModel* run, const QString& why) {
    for (BandOutlier& o : band.outliers)
        if (o.run == run) {
            o.why += QStringLiteral("; ") + why;
            return;
        }
    band.outliers.push_back({run, why});
}

void findOutliers(const RunSet& set, RunBand& band) {
    std::vector<RunId> ids;
    for (const RunModel* run : band.members) ids.push_back(run->id());
    if (const RunId first = set.firstNonFinite(ids); first != kNoRun) {
        const RunModel* run = set.run(first);
        addReason(band, run, QObject::tr("first non-finite, at step %1").arg(run->firstNonFiniteStep()));
    }
    std::vector<double> typicalStepMs;
    for (const RunModel* run : band.members)
        typicalStepMs.push_back(typicalStepMilliseconds(*run));
    const double groupTypical = stats::medianOf(typicalStepMs);
    std::vector<std::size_t> slow = stats::stragglers(typicalStepMs);
    std::sort(slow.begin(), slow.end(), [&](std::size_t a, std::size_t b) { return typicalStepMs[a] > typicalStepMs[b]; });
    for (const std::size_t m : slow)
        addReason(band, band.members[m],
                  QObject::tr("straggler: step time %1x the typical %2 ms")
                      .arg(typicalStepMs[m] / groupTypical, 0, 'f', 1)
                      .arg(groupTypical, 0, 'g', 3));
    std::vector<BandMemberPoints> smoothed;
    smoothed.reserve(band.members.size());
    std::vector<stats::MemberSeries> losses;
    for (const RunModel* run : band.members) losses.push_back(smoothed.emplace_back(run->steps().smoothedLoss()).series());
    const std::vector<stats::QuantileBandPoint> lossBand = stats::quantileBandSeries(losses);
    for (std::size_t m = 0; m < band.members.size(); ++m)
        if (const std::optional<stats::StepRange> away = stats::departure(lossBand, losses[m]))
            addReason(band, band.members[m],
                      QObject::tr("loss %1 the band, steps %2-%3")
                          .arg(away->above ? QObject::tr("above") : QObject::tr("below"))
                          .arg(away->first)
                          .arg(away->last));
    if (static_cast<int>(band.outliers.size()) > RunBand::kNamedOutliers) {
        band.moreOutliers = static_cast<int>(band.outliers.size()) - RunBand::kNamedOutliers;
        band.outliers.resize(RunBand::kNamedOutliers);
    }
}

}  // namespace

double typicalStepMilliseconds(const RunModel& run) {
    return stats::medianOf(BandMemberPoints(run.steps().stepMilliseconds()).values);
}

std::vector<RunBand> shownRunBands(const RunSet& set) {
    std::vector<RunBand> bands = shownBandMembers(set);
    for (RunBand& band : bands) findOutliers(set, band);
    return bands;
}

std::vector<RunBand> runBandsOf(const RunSet& set, const std::vector<RunId>& runs) {
    std::vector<const RunModel*> models;
    for (const RunId id : runs)
        if (const RunModel* run = set.run(id)) models.push_back(run);
    std::vector<RunBand> bands = bandMembersOf(models);
    for (RunBand& band : bands) findOutliers(set, band);
    return bands;
}

}  // namespace ampscope::ui
