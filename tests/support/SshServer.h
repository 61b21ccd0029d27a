#pragma once
// A real OpenSSH server for the suites that follow runs over SSH: sshd on 127.0.0.1 on a
// port reserved for it for its whole life (ReservedPort.h), with a throwaway host key, user key, authorized_keys and sshd_config in a
// temporary folder, and an ssh_config (sshConfig()) that the tests hand to ampscope through
// AMPSCOPE_SSH_CONFIG. Nothing of the system's configuration is read or changed.
//
// - Works as root and as another user. sshd insists on absolute paths, and with
//   StrictModes on refuses an authorized_keys whose folders up to / are writable by
//   others (/tmp is), so StrictModes is off: these are its own throwaway files. Run as
//   root, sshd also needs its privilege-separation folder /run/sshd, which Debian's
//   ssh.service makes at boot and a container lacks: the fixture then starts sshd in a
//   private mount namespace (unshare) with a tmpfs on /run holding one, so the host's
//   /run is not touched.
// - Hosts in the ssh_config: kHost (the server, as this user, with the user key and the
//   server's key in a known_hosts of its own), kWrongKeyHost (a key the server does not
//   accept), kUnknownKeyHost (strict checking against an empty known_hosts), kJumpHost
//   (the server again, reached through kHost with ProxyJump).
// - kill() ends sshd and every session under it (SIGKILL): connections drop as when
//   the machine goes away; start() brings it back on the same port with the same keys.
//   Not thread-safe, except killFromAnyThread().
// - whyNot(): empty when the server runs, else why it cannot here. A test function that
//   needs the server starts with AMPSCOPE_SKIP_WITHOUT_SSHD(server): it skips, saying why,
//   on a machine without sshd, and fails where AMPSCOPE_REQUIRE_SSHD=1 (CI sets it), so
//   that a run cannot pass with no SSH coverage.
#include <QtCore/QByteArray>
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include "ReservedPort.h"
#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <memory>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace ampscope::test {

class SshServer {
public:
    static constexpr const char* kHost = "ampscope-test";
    static constexpr const char* kWrongKeyHost = "ampscope-test-wrong-key";
    static constexpr const char* kUnknownKeyHost = "ampscope-test-unknown-key";
    static constexpr const char* kJumpHost = "ampscope-test-jump";  // through kHost (ProxyJump)

    SshServer() {
        if (!dir_.isValid()) {
            whyNot_ = QStringLiteral("no temporary folder");
            return;
        }
        for (const char* tool : {"/usr/sbin/sshd", "/usr/bin/ssh-keygen", "/usr/bin/ssh"}) {
            if (!QFile::exists(QString::fromLatin1(tool))) {
                whyNot_ = QStringLiteral("%1 is missing (installer/install-deps.sh installs "
                                         "openssh-server and openssh-client)")
                              .arg(QString::fromLatin1(tool));
                return;
            }
        }
        if (port_.port() == 0) {
            whyNot_ = QStringLiteral("no port of 127.0.0.1 between %1 and %2 could be reserved")
                          .arg(ReservedPort::kLowest)
                          .arg(ReservedPort::ephemeralLow() - 1);
            return;
        }
        if (!makeKey("host_key") || !makeKey("user_key") || !makeKey("other_key")) return;
        QFile::copy(path("user_key.pub"), path("authorized_keys"));
        writeFiles();
        ready_ = true;
        start();
    }

    ~SshServer() { kill(); }

    const QString& whyNot() const { return whyNot_; }
    // AMPSCOPE_REQUIRE_SSHD=1: a server that cannot start fails the test instead of
    // skipping it.
    static bool required() { return qgetenv("AMPSCOPE_REQUIRE_SSHD") == QByteArrayLiteral("1"); }
    QString sshConfig() const { return path("ssh_config"); }
    int port() const { return port_.port(); }
    QString folder() const { return dir_.path(); }
    // "ssh://ampscope-test" + absolute local path: the same folder, reached over SSH.
    static QString address(const QString& localPath, const char* host = kHost) {
        return QStringLiteral("ssh://%1%2").arg(QString::fromLatin1(host), localPath);
    }

    // Starts (again) on the same port with the same keys; false, whyNot() saying why, when
    // it does not. Without the tools or keys there is nothing to start: whyNot() stays.
    bool start() {
        if (!ready_) return false;
        QStringList sshd{QStringLiteral("/usr/sbin/sshd"), QStringLiteral("-D"), QStringLiteral("-e"),
                         QStringLiteral("-f"), path("sshd_config")};
        process_ = std::make_unique<QProcess>();
        process_->setStandardOutputFile(QProcess::nullDevice());
        process_->setStandardErrorFile(path("sshd.log"), QIODevice::Append);
        if (::geteuid() == 0 && !QFile::exists(QStringLiteral("/run/sshd"))) {
            const QString inside = QStringLiteral(
                "mount -t tmpfs -o mode=755 tmpfs /run && mkdir -m 755 /run/sshd && exec \"$@\"");
            process_->start(QStringLiteral("unshare"),
                            QStringList{QStringLiteral("--mount"), QStringLiteral("--propagation"),
                                        QStringLiteral("private"), QStringLiteral("sh"),
                                        QStringLiteral("-c"), inside, QStringLiteral("sh")} + sshd);
        } else {
            process_->start(sshd.takeFirst(), sshd);
        }
        if (!process_->waitForStarted(5000)) {
            whyNot_ = QStringLiteral("sshd did not start");
            return false;
        }
        sshdPid_ = static_cast<pid_t>(process_->processId());
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 10000) {
            if (accepts()) {
                whyNot_.clear();
                return true;
            }
            if (process_->state() == QProcess::NotRunning) break;
            QThread::msleep(20);
        }
        QFile log(path("sshd.log"));
        log.open(QIODevice::ReadOnly);
        whyNot_ = QStringLiteral("sshd on 127.0.0.1:%1 did not start: %2")
                      .arg(port())
                      .arg(QString::fromUtf8(log.readAll()).trimmed().section(QLatin1Char('\n'), -2));
        if (::geteuid() == 0 && !QFile::exists(QStringLiteral("/run/sshd")))
            whyNot_ += QStringLiteral(" (as root sshd needs /run/sshd; without a private mount "
                                      "namespace here, mkdir -m 755 /run/sshd lets it start)");
        return false;
    }

    void kill() {
        if (!process_ || process_->state() == QProcess::NotRunning) return;
        killFromAnyThread();
        process_->waitForFinished(5000);
        process_.reset();
    }

    // kill()'s signals only (no Qt object is touched): for a test's other thread, which
    // kills the server at the moment it watches for; kill() on the test's thread then reaps.
    void killFromAnyThread() const {
        if (sshdPid_ <= 0) return;
        for (pid_t pid : descendants(sshdPid_)) ::kill(pid, SIGKILL);
        ::kill(sshdPid_, SIGKILL);
    }

    // Every process below `root` (sshd's session processes and the shells they run; the
    // ssh processes a test started).
    static std::set<pid_t> descendants(pid_t root) {
        std::map<pid_t, pid_t> parentOf;
        for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            bool number = false;
            const pid_t pid = entry.toInt(&number);
            if (!number) continue;
            std::ifstream stat("/proc/" + entry.toStdString() + "/stat");
            std::string line;
            std::getline(stat, line);
            const std::size_t close = line.rfind(')');
            if (close == std::string::npos) continue;
            std::istringstream fields(line.substr(close + 2));
            char state = 0;
            pid_t parent = 0;
            fields >> state >> parent;
            parentOf[pid] = parent;
        }
        std::set<pid_t> found{root};
        for (bool grew = true; grew;) {
            grew = false;
            for (const auto& [pid, parent] : parentOf)
                if (found.count(parent) && found.insert(pid).second) grew = true;
        }
        found.erase(root);
        return found;
    }

    // A port of 127.0.0.1 that nothing listens on, and that no other suite takes, for the
    // rest of this process (a "connection refused" case stays refused however long it runs).
    static int freePort() {
        static std::deque<ReservedPort> kept;
        return kept.emplace_back().port();
    }

private:
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }

    bool accepts() const {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port()));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
        ::close(fd);
        return connected;
    }

    bool makeKey(const char* name) {
        QProcess keygen;
        keygen.start(QStringLiteral("/usr/bin/ssh-keygen"),
                     {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                      QStringLiteral("-N"), QString(), QStringLiteral("-C"), QStringLiteral("ampscope-test"),
                      QStringLiteral("-f"), path(name)});
        if (keygen.waitForFinished(20000) && keygen.exitCode() == 0) return true;
        whyNot_ = QStringLiteral("ssh-keygen failed: %1").arg(QString::fromUtf8(keygen.readAllStandardError()));
        return false;
    }

    static QString readAll(const QString& file) {
        QFile f(file);
        f.open(QIODevice::ReadOnly);
        return QString::fromUtf8(f.readAll()).trimmed();
    }

    void writeFiles() const {
        const passwd* me = ::getpwuid(::geteuid());
        const QString user = QString::fromLocal8Bit(me ? me->pw_name : "root");
        write("sshd_config", QStringLiteral(
                                 "ListenAddress 127.0.0.1:%1\nHostKey %2\nAuthorizedKeysFile %3\n"
                                 "PidFile none\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                                 "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
                                 "AllowUsers %4\nLogLevel INFO\n")
                                 .arg(port())
                                 .arg(path("host_key"), path("authorized_keys"), user));
        write("known_hosts", QStringLiteral("ampscope-test %1\n").arg(readAll(path("host_key.pub"))));
        write("empty_known_hosts", QString());
        const QString common = QStringLiteral(
                                   "  HostName 127.0.0.1\n  Port %1\n  User %2\n  IdentitiesOnly yes\n"
                                   "  HostKeyAlias ampscope-test\n  GlobalKnownHostsFile /dev/null\n"
                                   "  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
                                   .arg(port())
                                   .arg(user);
        write("ssh_config",
              QStringLiteral("Host %1\n%2  IdentityFile %3\n  UserKnownHostsFile %4\n"
                             "Host %5\n%2  IdentityFile %6\n  UserKnownHostsFile %4\n"
                             "Host %7\n%2  IdentityFile %3\n  UserKnownHostsFile %8\n"
                             "Host %9\n%2  IdentityFile %3\n  UserKnownHostsFile %4\n  ProxyJump %1\n")
                  .arg(QString::fromLatin1(kHost), common, path("user_key"), path("known_hosts"),
                       QString::fromLatin1(kWrongKeyHost), path("other_key"),
                       QString::fromLatin1(kUnknownKeyHost), path("empty_known_hosts"),
                       QString::fromLatin1(kJumpHost)));
    }

    void write(const char* name, const QString& text) const {
        QFile file(path(name));
        file.open(QIODevice::WriteOnly | QIODevice::Truncate);
        file.write(text.toUtf8());
    }

    QTemporaryDir dir_;
    bool ready_ = false;  // the keys and configuration are written
    ReservedPort port_;
    QString whyNot_;
    std::unique_ptr<QProcess> process_;
    pid_t sshdPid_ = 0;
};

}  // namespace ampscope::test

// In a Qt Test function that needs `server` (an SshServer): skips it, saying why, when the
// server does not run here; fails it instead where the server is required (required()).
#define AMPSCOPE_SKIP_WITHOUT_SSHD(server)                                                          \
    do {                                                                                            \
        if (!(server).whyNot().isEmpty()) {                                                         \
            if (::ampscope::test::SshServer::required())                                            \
                QFAIL(qPrintable(QStringLiteral("AMPSCOPE_REQUIRE_SSHD=1, and the test's sshd does " \
                                                "not run: ") +                                      \
                                 (server).whyNot()));                                               \
            QSKIP(qPrintable((server).whyNot()));                                                   \
        }                                                                                           \
    } while (false)
