#pragma once
// RemoteRunFollowing: the window's side of a run on another machine (ssh://). It owns the
// RemoteRunMirror (core) that keeps a local copy of the run up to date through the
// user's ssh, so the window opens and follows that copy as it does any run directory,
// and it says in words how the connection stands.
//
// - waitUntilCopied() returns once everything the remote run held when first measured is
//   in the copy (the window then opens it), or fails with the mirror's one line; the
//   window keeps repainting meanwhile (no user input), and `progress` gets the status text.
// - statusChanged(text) whenever the connection's state changes: "Following host:path ·
//   reconnecting… (last try: ...)" while it is retried, the failure's line once it is lost
//   for good (and failed(line), once), and an empty text when it follows as it should
//   (the window's own line stands).
// - Destroying it ends ssh and removes the copy: the window destroys it when the run is
//   closed, another is opened, or the window closes.
#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>
#include <memory>

namespace ampscope {
class RemoteRunMirror;
}

namespace ampscope::ui {

class RemoteRunFollowing : public QObject {
    Q_OBJECT
public:
    // Throws InputError for an address that is not ssh://[user@]host[:port]/path.
    explicit RemoteRunFollowing(const QString& address, QObject* parent = nullptr);
    ~RemoteRunFollowing() override;

    bool waitUntilCopied(const std::function<void(const QString& text)>& progress, QString* error);
    QString localDirectory() const;
    QString shownName() const;  // "host:path"
    QString statusText() const;

Q_SIGNALS:
    void statusChanged(const QString& text);
    void failed(const QString& line);

private:
    void checkStatus();

    std::unique_ptr<RemoteRunMirror> mirror_;
    QTimer timer_;
    QString lastText_;
    bool failedSaid_ = false;
};

}  // namespace ampscope::ui
