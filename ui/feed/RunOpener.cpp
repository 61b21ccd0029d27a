#include "feed/RunOpener.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "feed/RemoteRunFollowing.h"
#include "feed/RunDirectoryNaming.h"
#include "feed/RunFeed.h"
#include "common/Text.h"
#include "run/JobNonFiniteOrigin.h"
#include "run/RemoteRunAddress.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"
#include "run/RunSetFolder.h"
#include "config/ConfigJson.h"
#include "runset/OpenedBandMembers.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

namespace {

// How a followed run ended, as its summary.json says (through the summary's codec).
RecordedEnd endOf(const QString& directory) {
    try {
        const RunRecordReader reader(directory.toStdString());
        if (const auto& summary = reader.data().summary) return recordedEnd(*summary, directory);
    } catch (const std::exception&) {
        // Gone since: it did end.
    }
    return {QStringLiteral("finished"), QString()};
}

}  // namespace

RunOpener::RunOpener(RunSet* set, QObject* parent) : QObject(parent), set_(set) {
    connect(set_, &RunSet::changed, this, [this](RunId run, RunChanges what) {
        if (!(what & RunChange::Removed)) return;
        settle(run);  // a run that left the set is not waited for
        endProblems_.erase(run);
        const auto it = feeds_.find(run);
        if (it == feeds_.end()) return;
        it->second->deleteLater();
        feeds_.erase(it);
    });
}

RunOpener::~RunOpener() {
    endRemote();
}

QString RunOpener::shown(const QString& directory) const {
    if (remote_) {
        const QString local = remote_->localDirectory();
        if (directory == local) return remote_->shownName();
        if (directory.startsWith(local + QLatin1Char('/'))) return remote_->shownName() + directory.mid(local.size());
    }
    return shownPath(directory);
}

void RunOpener::endRemote() {
    if (!remote_) return;
    for (RunId id : remoteRuns_) {
        const auto it = feeds_.find(id);
        if (it == feeds_.end()) continue;
        if (it->second->isFollowing()) set_->setStatus(id, QStringLiteral("incomplete"));
        it->second->stopFollowing();
    }
    remoteRuns_.clear();
    remote_.reset();  // ends ssh, removes the copy
}

bool RunOpener::open(const QString& path, QString* error) {
    QString why;
    bool opened = false;
    if (isRemoteRunAddress(path.toStdString())) {
        opened = openRemote(path, &why);
    } else {
        endRemote();
        opened = openLocal(path, &why);
    }
    if (opened) return true;
    Q_EMIT refused(tr("Not opened: %1").arg(QString(why).replace(QLatin1Char('\n'), QStringLiteral("; "))));
    if (error) *error = why;
    return false;
}

bool RunOpener::openRemote(const QString& address, QString* error) {
    std::unique_ptr<RemoteRunFollowing> remote;
    try {
        remote = std::make_unique<RemoteRunFollowing>(address);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    if (!remote->waitUntilCopied([this](const QString& text) { Q_EMIT progress(text); }, error)) return false;
    endRemote();
    remote_ = std::move(remote);
    connect(this, &RunOpener::message, remote_.get(), [this](const QString& text) { remoteOpenedText_ = text; });
    if (!openLocal(remote_->localDirectory(), error)) {
        remote_.reset();
        return false;
    }
    remoteRuns_ = opened_;
    connect(remote_.get(), &RemoteRunFollowing::statusChanged, this, [this](const QString& text) {
        if (isFollowing()) Q_EMIT progress(text.isEmpty() ? remoteOpenedText_ : text);
    });
    connect(remote_.get(), &RemoteRunFollowing::failed, this, &RunOpener::followFailed);
    return true;
}

qint64 RunOpener::stepsShown() const {
    qint64 steps = 0;
    for (RunId id : opened_)
        if (const RunModel* run = set_->run(id)) steps += run->steps().stepCount();
    return steps;
}

void RunOpener::settle(RunId run) {
    const auto it = std::find(awaiting_.begin(), awaiting_.end(), run);
    if (it == awaiting_.end()) return;
    awaiting_.erase(it);
    if (!awaiting_.empty() || !settling_) return;
    settling_ = false;
    // Every run of the open failed while it was being caught up with: nothing of it shows.
    if (!opened_.empty() && failed_.size() == opened_.size()) unreadable_ = lateFailures_.join(QStringLiteral("; "));
    Q_EMIT runLoaded();
}

bool RunOpener::openLocal(const QString& path, QString* error) {
    awaiting_.clear();
    settling_ = false;
    failed_.clear();
    lateFailures_.clear();
    unreadable_.clear();
    const QString cleaned = QDir::cleanPath(path);
    const std::vector<std::string> directories = runSetDirectories(cleaned.toStdString());
    if (directories.empty()) {
        // The reader's own line for what is not a run (a missing path, a file, no config.json).
        const LoadedRun refused = loadRunDirectory(*set_, cleaned, {});
        if (error) *error = QString(refused.error).replace(cleaned, shown(cleaned));
        return false;
    }
    const bool asSet = directories.size() > 1 || QDir(cleaned).exists(QStringLiteral("rank-0")) ||
                       QString::fromStdString(directories.front()) != cleaned;
    if (asSet)  // the set opened is what is compared now
        for (const RunModel* run : set_->runs()) set_->setCompared(run->id(), false);
    opened_.clear();
    QStringList refused, warnings;
    bool following = false;
    const bool focus = !asSet;
    QStringList complete;
    std::vector<bool> completeInBand;
    const std::vector<bool> inBand = bandMembersAmong(directories);
    for (std::size_t d = 0; d < directories.size(); ++d) {
        const QString directory = QString::fromStdString(directories[d]);
        if (QFileInfo::exists(directory + QStringLiteral("/summary.json"))) {
            complete << directory;
            completeInBand.push_back(inBand[d]);
            continue;
        }
        QString failure;
        const RunId id = followDirectory(directory, focus, inBand[d], &failure);
        if (id == kNoRun) {
            refused << failure;
            continue;
        }
        opened_.push_back(id);
        following = true;
        // A small run has caught up within followDirectory: nothing to wait for.
        if (!feeds_.at(id)->hasCaughtUp()) awaiting_.push_back(id);
    }
    // The complete runs all at once: each parses on a thread of its own meanwhile.
    const std::vector<LoadedRun> loadedRuns =
        loadRunDirectories(*set_, complete, {focus, true}, [&](double fraction) {
            Q_EMIT progress(tr("Opening %1\u2026 %2%").arg(shown(cleaned)).arg(100.0 * fraction, 0, 'f', 0));
            QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
        }, completeInBand);
    for (const LoadedRun& loaded : loadedRuns) {
        if (!loaded.run) {
            refused << loaded.error;
            continue;
        }
        opened_.push_back(loaded.run->id());
        warnings << loaded.warnings;
        if (!loaded.error.isEmpty()) refused << loaded.error;  // read errors after the start: what was read stays
        if (!loaded.problem.isEmpty()) refused << QString(loaded.problem).replace(cleaned, shown(cleaned));
        if (!loaded.note.isEmpty()) warnings << loaded.note;
    }
    if (opened_.empty()) {
        if (error) *error = refused.join(QLatin1Char('\n'));
        return false;
    }
    if (asSet) set_->focusFirstNonFinite(opened_);
    QString text = asSet ? tr("Opened %1 runs of %2").arg(opened_.size()).arg(shown(cleaned))
                         : tr("Opened %1 (%2 steps)").arg(shown(cleaned)).arg(stepsShown());
    if (following)
        text = asSet ? text + tr(", following those not ended (no summary.json yet)")
                     : tr("Following %1: not ended (no summary.json yet), it may still be running").arg(shown(cleaned));
    jobOrigin_.clear();
    if (QDir(cleaned).exists(QStringLiteral("rank-0"))) {
        try {
            jobOrigin_ = QString::fromStdString(jobNonFiniteOriginOf(directories));
        } catch (const std::exception&) {
            // A rank that cannot be read now: its own line says so.
        }
    }
    if (!warnings.isEmpty()) text += tr(" \u00B7 %1 warning(s)").arg(warnings.size());
    if (!refused.isEmpty()) text += tr(" \u00B7 %1").arg(refused.join(QStringLiteral("; ")));
    if (!jobOrigin_.isEmpty()) text += QStringLiteral(" \u00B7 ") + jobOrigin_;
    Q_EMIT message(text, warnings);
    // runLoaded once every followed run has caught up (or failed); at once when none is left
    // to wait for. Each run's first poll ran above, so a catch-up or failure then is not lost.
    if (awaiting_.empty()) Q_EMIT runLoaded();
    else settling_ = true;
    return true;
}

RunId RunOpener::followDirectory(const QString& directory, bool focus, bool bandMember, QString* failure) {
    QString note;
    RunContext context;
    std::unique_ptr<RunFollower> follower;
    try {
        context = recordedRunContext(directory, &note);
        context.bandMember = bandMember;
        follower = std::make_unique<RunFollower>(directory.toStdString());
    } catch (const std::exception& e) {
        *failure = QString::fromUtf8(e.what()).replace(directory, shown(directory));
        return kNoRun;
    }
    const RunId id = addFollowed(std::move(follower), context, focus, failure);
    if (failure && !failure->isEmpty()) failure->replace(directory, shown(directory));
    return id;
}

std::vector<bool> RunOpener::bandMembersAmong(const std::vector<std::string>& directories) {
    // Decided among every run of the folder, those followed and those read whole alike, so
    // a job whose ranks are partly finished is thin throughout.
    return openedBandMembers(directories, [&](std::size_t d) -> std::optional<nlohmann::json> {
        try {
            return configToJson(recordedRunContext(QString::fromStdString(directories[d]), nullptr).config);
        } catch (const std::exception&) {
            return std::nullopt;  // refused below, with its line
        }
    });
}

RunId RunOpener::follow(std::unique_ptr<RunFollower> follower, const RunContext& context) {
    return addFollowed(std::move(follower), context, true, nullptr);
}

RunId RunOpener::addFollowed(std::unique_ptr<RunFollower> follower, const RunContext& context, bool focus,
                             QString* failedAtOnce) {
    RunModel* run = set_->addRun(context, {focus, true});
    const RunId id = run->id();
    set_->setStatus(id, QStringLiteral("following"));
    auto* feed = new RunFeed(set_, run, this);
    feeds_[id] = feed;
    connect(feed, &RunFeed::followCaughtUp, this, [this, id] { settle(id); });
    connect(feed, &RunFeed::followFinished, this, [this, id] {
        const RunModel* ended = set_->run(id);
        const RecordedEnd end = endOf(ended->directory());
        set_->setStatus(id, end.status);
        endProblems_[id] = QString(end.problem).replace(ended->directory(), shown(ended->directory()));
        Q_EMIT followFinished(id);
    });
    feed->follow(std::move(follower));  // its first poll, here and now
    if (!feed->failure().isEmpty()) {
        if (failedAtOnce) {
            // Failed before anything was shown: refused like a directory the reader refuses.
            *failedAtOnce = feed->failure();
            set_->removeRun(id);
            return kNoRun;
        }
        set_->setStatus(id, QStringLiteral("incomplete"));
        Q_EMIT followFailed(feed->failure());
        return id;
    }
    connect(feed, &RunFeed::followFailed, this, [this, id](const QString& message) {
        set_->setStatus(id, QStringLiteral("incomplete"));
        const RunModel* failedRun = set_->run(id);
        const QString said = failedRun ? QString(message).replace(failedRun->directory(), shown(failedRun->directory()))
                                       : message;
        if (std::find(awaiting_.begin(), awaiting_.end(), id) != awaiting_.end()) {
            failed_.insert(id);
            lateFailures_ << said;
        }
        Q_EMIT followFailed(said);
        settle(id);
    });
    return id;
}

void RunOpener::stopFollowing() {
    for (auto& [id, feed] : feeds_) feed->stopFollowing();
    awaiting_.clear();  // what was asked will not all come: nobody waits for it
    settling_ = false;
    endRemote();
}

bool RunOpener::isFollowing() const {
    for (const auto& [id, feed] : feeds_)
        if (feed->isFollowing()) return true;
    return false;
}

}  // namespace ampscope::ui
