#include "feed/RemoteRunFollowing.h"

#include <QCoreApplication>
#include <QEventLoop>

#include "common/InputError.h"
#include "common/Text.h"
#include "run/RemoteRunAddress.h"
#include "run/RemoteRunMirror.h"

namespace ampscope::ui {
namespace {

constexpr int kStatusMilliseconds = 250;

}  // namespace

RemoteRunFollowing::RemoteRunFollowing(const QString& address, QObject* parent) : QObject(parent) {
    mirror_ = std::make_unique<RemoteRunMirror>(parseRemoteRunAddress(address.toStdString()),
                                                RemoteMirrorOptions::fromEnvironment());
    timer_.setInterval(kStatusMilliseconds);
    connect(&timer_, &QTimer::timeout, this, &RemoteRunFollowing::checkStatus);
}

RemoteRunFollowing::~RemoteRunFollowing() = default;

bool RemoteRunFollowing::waitUntilCopied(const std::function<void(const QString&)>& progress, QString* error) {
    try {
        mirror_->waitUntilSynced([&](const RemoteRunMirror::Status& status) {
            if (progress) {
                const QString what = status.state == RemoteRunMirror::State::Connecting
                                         ? tr("Connecting to %1…").arg(shownName())
                                         : tr("Copying %1… %2")
                                               .arg(shownName(), QString::fromStdString(formatBytes(status.bytesCopied)));
                progress(what);
            }
            QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
        });
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    timer_.start();
    return true;
}

QString RemoteRunFollowing::localDirectory() const {
    return QString::fromStdString(mirror_->localDirectory());
}

QString RemoteRunFollowing::shownName() const {
    return QString::fromStdString(mirror_->address().shown());
}

QString RemoteRunFollowing::statusText() const {
    const RemoteRunMirror::Status status = mirror_->status();
    switch (status.state) {
        case RemoteRunMirror::State::Reconnecting:
            return tr("Following %1 · reconnecting… (last try: %2)")
                .arg(shownName(), QString::fromStdString(status.message));
        case RemoteRunMirror::State::Failed:
            return tr("%1 · what arrived stays shown").arg(QString::fromStdString(status.message));
        default:
            return {};  // following as it should: the window's own line stands
    }
}

void RemoteRunFollowing::checkStatus() {
    const QString text = statusText();
    if (text != lastText_) {
        lastText_ = text;
        Q_EMIT statusChanged(text);
    }
    const RemoteRunMirror::Status status = mirror_->status();
    if (status.state == RemoteRunMirror::State::Failed && !failedSaid_) {
        failedSaid_ = true;
        Q_EMIT failed(QString::fromStdString(status.message));
    }
    if (status.state == RemoteRunMirror::State::Finished || status.state == RemoteRunMirror::State::Failed)
        timer_.stop();
}

}  // namespace ampscope::ui
