#include "RunOpener.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include "RemoteRunFollowing.h"
#include "RunDirectoryNaming.h"
#include "RunFeed.h"
#include "common/Text.h"
#include "run/JobNonFiniteOrigin.h"
#include "run/RemoteRunAddress.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"
#include "run/RunSetFolder.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

namespace {

// The status its summary.json gives a run that has ended.
QString endStatus(const QString& directory) {
    try {
        const RunRecordReader reader(directory.toStdString());
        if (const auto& summary = reader.data().summary; summary && summary->is_object())
            return QString::fromStdString(summary->value("status", std::string("finished")));
    } catch (const std::exception&) {
        // Gone since: it did end.
    }
    return QStringLiteral("finished");
}

}  // namespace

RunOpener::RunOpener(RunSet* set, QObject* parent) : QObject(parent), set_(set) {
    connect(set_, &RunSet::changed, this, [this](RunId run, RunChanges what) {
        if (!(what & RunChange::Removed)) return;
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
    if (isRemoteRunAddress(path.toStdString())) return openRemote(path, error);
    endRemote();
    return openLocal(path, error);
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

bool RunOpener::openLocal(const QString& path, QString* error) {
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
    for (const std::string& dir : directories) {
        const QString directory = QString::fromStdString(dir);
        if (QFileInfo::exists(directory + QStringLiteral("/summary.json"))) {
            complete << directory;
            continue;
        }
        const RunId id = followDirectory(directory, focus);
        if (id == kNoRun) refused << tr("%1: not a run").arg(shown(directory));
        else opened_.push_back(id), following = true;
    }
    // The complete runs all at once: each parses on a thread of its own meanwhile.
    const std::vector<LoadedRun> loadedRuns =
        loadRunDirectories(*set_, complete, {focus, true}, [&](double fraction) {
            Q_EMIT progress(tr("Opening %1\u2026 %2%").arg(shown(cleaned)).arg(100.0 * fraction, 0, 'f', 0));
            QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
        });
    for (const LoadedRun& loaded : loadedRuns) {
        if (!loaded.run) {
            refused << loaded.error;
            continue;
        }
        opened_.push_back(loaded.run->id());
        warnings << loaded.warnings;
        if (!loaded.error.isEmpty()) refused << loaded.error;  // read errors after the start: what was read stays
        if (!loaded.note.isEmpty()) warnings << loaded.note;
    }
    if (opened_.empty()) {
        if (error) *error = refused.join(QLatin1Char('\n'));
        return false;
    }
    if (asSet) set_->focusFirstNonFinite(opened_);
    QString text = asSet ? tr("Opened %1 runs of %2").arg(opened_.size()).arg(shown(cleaned))
                         : tr("Opened %1 (%2 steps)").arg(shown(cleaned)).arg(stepsShown());
    if (following) text = asSet ? text + tr(", following those still being written")
                                : tr("Following %1 (still being written)").arg(shown(cleaned));
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
    awaitingCatchUp_ = following;
    if (!following) Q_EMIT runLoaded();
    return true;
}

RunId RunOpener::followDirectory(const QString& directory, bool focus) {
    QString note;
    RunContext context;
    std::unique_ptr<RunFollower> follower;
    try {
        context = recordedRunContext(directory, &note);
        follower = std::make_unique<RunFollower>(directory.toStdString());
    } catch (const std::exception&) {
        return kNoRun;
    }
    return addFollowed(std::move(follower), context, focus);
}

RunId RunOpener::follow(std::unique_ptr<RunFollower> follower, const RunContext& context) {
    return addFollowed(std::move(follower), context, true);
}

RunId RunOpener::addFollowed(std::unique_ptr<RunFollower> follower, const RunContext& context, bool focus) {
    RunModel* run = set_->addRun(context, {focus, true});
    const RunId id = run->id();
    set_->setStatus(id, QStringLiteral("following"));
    auto* feed = new RunFeed(set_, run, this);
    feeds_[id] = feed;
    connect(feed, &RunFeed::followCaughtUp, this, [this] {
        if (!awaitingCatchUp_) return;
        awaitingCatchUp_ = false;
        Q_EMIT runLoaded();
    });
    connect(feed, &RunFeed::followFinished, this, [this, id] {
        set_->setStatus(id, endStatus(set_->run(id)->directory()));
        Q_EMIT followFinished(id);
    });
    connect(feed, &RunFeed::followFailed, this, [this, id](const QString& message) {
        set_->setStatus(id, QStringLiteral("incomplete"));
        Q_EMIT followFailed(message);
    });
    feed->follow(std::move(follower));
    return id;
}

void RunOpener::stopFollowing() {
    for (auto& [id, feed] : feeds_) feed->stopFollowing();
    endRemote();
}

bool RunOpener::isFollowing() const {
    for (const auto& [id, feed] : feeds_)
        if (feed->isFollowing()) return true;
    return false;
}

}  // namespace ampscope::ui
