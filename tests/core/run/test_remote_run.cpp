// Following a run over SSH (RemoteRunMirror, RunFollower reading its copy) through a real
// sshd on 127.0.0.1 (SshServer.h): a recorder run followed while it trains, a server
// killed and restarted mid-run, a torn line, a folder of ranks, every bad input; and the
// ssh:// address parser.
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "ExactCompare.h"
#include "SshServer.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "run/RemoteRunAddress.h"
#include "run/RemoteRunMirror.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"

using ampscope::InputError;
using ampscope::RemoteMirrorOptions;
using ampscope::RemoteRunAddress;
using ampscope::RemoteRunMirror;
using ampscope::RunFollower;
using ampscope::test::SshServer;
using nlohmann::json;

namespace {

void writeFile(const std::string& path, const std::string& bytes, bool append = false) {
    std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    out << bytes;
}

constexpr const char* kRunStart = "{\"type\":\"run_start\",\"schema_version\":1}\n";

// A run directory at `dir` written by hand: config.json, and events.jsonl when given.
std::string makeRun(const std::string& dir, const std::optional<std::string>& events = std::nullopt) {
    QDir().mkpath(QString::fromStdString(dir));
    writeFile(dir + "/config.json", R"({"schema_version": 1})");
    if (events) writeFile(dir + "/events.jsonl", *events);
    return dir;
}

std::int64_t fileSize(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 ? info.st_size : -1;
}

// A recorder run of `steps` steps that pauses `pause` seconds after each, so that it is
// still training while the test follows it.
QProcess* startRecorder(const QString& runDir, int steps, double pause, QObject* parent) {
    const QString script = QStringLiteral(R"PY(
import sys, time, torch
import ampscope
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
with ampscope.Recorder(sys.argv[1], model, optimizer=opt, probe_every=25) as rec:
    for step in range(int(sys.argv[2])):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        rec.step(loss)
        time.sleep(float(sys.argv[3]))
)PY");
    auto* process = new QProcess(parent);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"),
               QString::fromStdString(ampscope::test::sourceDir()) + QStringLiteral("/python"));
    process->setProcessEnvironment(env);
    process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process->start(QString::fromStdString(ampscope::test::envOr("AMPSCOPE_PYTHON", "/usr/bin/python3")),
                   {QStringLiteral("-c"), script, runDir, QString::number(steps), QString::number(pause)});
    // The run directory appears once torch is imported; following starts then.
    QElapsedTimer waited;
    waited.start();
    while (!QFile::exists(runDir + QStringLiteral("/config.json")) && waited.elapsed() < 60000)
        QThread::msleep(20);
    return process;
}

// Every record the recorder wrote arrived once, in order, as the finished file holds it.
void compareWithTheFile(const std::vector<json>& followed, const QString& runDir, std::size_t atLeast) {
    const ampscope::RunData written = ampscope::readRunDirectory(runDir.toStdString());
    QVERIFY(written.complete);
    QVERIFY(written.events.size() > atLeast);
    QCOMPARE(followed.size(), written.events.size());
    for (std::size_t i = 0; i < followed.size(); ++i)
        QVERIFY2(followed[i] == written.events[i], qPrintable(QString::number(i)));
}

RemoteMirrorOptions quickOptions(const SshServer& server, bool follow = true) {
    RemoteMirrorOptions options;
    options.ssh.configFile = server.sshConfig().toStdString();
    options.follow = follow;
    options.pollSeconds = 0.05;
    options.firstRetrySeconds = 0.2;
    options.maxRetrySeconds = 1.0;
    options.giveUpSeconds = 30;
    return options;
}

RemoteRunAddress addressOf(const QString& localPath, const char* host = SshServer::kHost) {
    return ampscope::parseRemoteRunAddress(SshServer::address(localPath, host).toStdString());
}

// The mirror's state once it has ended (or after 30 s): the copy holds a run's summary a
// moment before the remote side's last line ends the session and the state says so.
RemoteRunMirror::State endedState(const RemoteRunMirror& mirror) {
    QElapsedTimer waited;
    waited.start();
    while (mirror.status().state != RemoteRunMirror::State::Finished &&
           mirror.status().state != RemoteRunMirror::State::Failed && waited.elapsed() < 30000)
        QThread::msleep(10);
    return mirror.status().state;
}

// The failure line of a mirror that cannot start.
QString failureOf(const RemoteRunAddress& address, RemoteMirrorOptions options) {
    RemoteRunMirror mirror(address, std::move(options));
    try {
        mirror.waitUntilSynced();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("(no failure)");
}

}  // namespace

class TestRemoteRun : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<SshServer> server_;

    // The suite's one server, started by the first test that needs it.
    SshServer& server() {
        if (!server_) server_ = std::make_unique<SshServer>();
        return *server_;
    }

    // Follows the local copy until the run finished (or the time runs out); every record.
    std::vector<json> followCopy(RemoteRunMirror& mirror, const std::function<void(std::size_t)>& each = {}) {
        RunFollower follower(mirror.localDirectory());
        std::vector<json> records;
        QElapsedTimer time;
        time.start();
        while (!follower.finished() && time.elapsed() < 120000) {
            for (json& record : follower.poll()) records.push_back(std::move(record));
            if (each) each(records.size());
            if (mirror.status().state == RemoteRunMirror::State::Failed) break;
            QThread::msleep(30);
        }
        return records;
    }

private Q_SLOTS:
    void parsesAddresses() {
        RemoteRunAddress a = ampscope::parseRemoteRunAddress("ssh://alice@gpu-box:2222/data/runs/x");
        QCOMPARE(a.user, std::string("alice"));
        QCOMPARE(a.host, std::string("gpu-box"));
        QCOMPARE(a.port, 2222);
        QCOMPARE(a.path, std::string("/data/runs/x"));
        QCOMPARE(a.shown(), std::string("alice@gpu-box:/data/runs/x"));
        a = ampscope::parseRemoteRunAddress("ssh://gpu/~/runs/my%20run");
        QCOMPARE(a.user, std::string());
        QCOMPARE(a.port, 0);
        QCOMPARE(a.path, std::string("runs/my run"));  // in the home directory
        a = ampscope::parseRemoteRunAddress("ssh://[::1]:22/r");
        QCOMPARE(a.host, std::string("::1"));
        QCOMPARE(a.shown(), std::string("[::1]:/r"));
        QVERIFY(ampscope::isRemoteRunAddress("ssh://h/p"));
        QVERIFY(!ampscope::isRemoteRunAddress("runs/ssh://h/p"));
        const auto refusal = [](const char* text) {
            try {
                ampscope::parseRemoteRunAddress(text);
            } catch (const InputError& e) {
                return QString::fromUtf8(e.what());
            }
            return QString();
        };
        QCOMPARE(refusal("ssh://host"), QStringLiteral("ssh://host: no path after the host (ssh://[user@]host[:port]/path)"));
        QCOMPARE(refusal("ssh:///p"), QStringLiteral("ssh:///p: no host (ssh://[user@]host[:port]/path)"));
        QCOMPARE(refusal("ssh://h:0/p"), QStringLiteral("ssh://h:0/p: port '0' is not a number in 1..65535"));
        QCOMPARE(refusal("ssh://h:99999/p"), QStringLiteral("ssh://h:99999/p: port '99999' is not a number in 1..65535"));
        // ssh would read these as options.
        QCOMPARE(refusal("ssh://-oProxyCommand=x/p"),
                 QStringLiteral("ssh://-oProxyCommand=x/p: the host '-oProxyCommand=x' starts with '-' or "
                                "holds a space or control character"));
        QCOMPARE(refusal("ssh://-l@h/p"),
                 QStringLiteral("ssh://-l@h/p: the user '-l' starts with '-' or holds a space or control character"));
        QCOMPARE(refusal("ssh://h/a%2"), QStringLiteral("ssh://h/a%2: '%' must start an escape of two hex digits (%20 is a space)"));
    }

    void followsARecorderRunWhileItTrains() {
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const QString runDir = tmp.filePath(QStringLiteral("recorded"));
        QProcess* recorder = startRecorder(runDir, 300, 0.01, this);
        RemoteRunMirror mirror(addressOf(runDir), quickOptions(*server_));
        mirror.waitUntilSynced();
        QVERIFY2(!QFile::exists(runDir + QStringLiteral("/summary.json")), "the run ended before it was followed");
        const std::vector<json> followed = followCopy(mirror);
        QVERIFY(recorder->waitForFinished(60000));
        QCOMPARE(recorder->exitCode(), 0);
        compareWithTheFile(followed, runDir, 300);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(endedState(mirror), RemoteRunMirror::State::Finished);
        QCOMPARE(mirror.status().reconnections, 0);
    }

    void resumesAfterTheServerIsKilledAndRestarted() {
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const QString runDir = tmp.filePath(QStringLiteral("recorded"));
        QProcess* recorder = startRecorder(runDir, 400, 0.015, this);
        RemoteRunMirror mirror(addressOf(runDir), quickOptions(*server_));
        mirror.waitUntilSynced();
        bool killed = false, sawReconnecting = false;
        const std::vector<json> followed = followCopy(mirror, [&](std::size_t records) {
            if (!killed && records > 60) {
                server_->kill();  // sshd and every session under it: the connection drops
                killed = true;
                QElapsedTimer down;
                down.start();
                while (down.elapsed() < 10000 &&
                       mirror.status().state != RemoteRunMirror::State::Reconnecting)
                    QThread::msleep(10);
                sawReconnecting = mirror.status().state == RemoteRunMirror::State::Reconnecting;
                QThread::msleep(1500);  // a while without a server: retries are refused
                QVERIFY(server_->start());
            }
        });
        QVERIFY(killed);
        QVERIFY(sawReconnecting);
        QVERIFY(recorder->waitForFinished(60000));
        compareWithTheFile(followed, runDir, 400);  // nothing lost, nothing twice
        if (QTest::currentTestFailed()) return;
        QCOMPARE(endedState(mirror), RemoteRunMirror::State::Finished);
        const RemoteRunMirror::Status status = mirror.status();
        QVERIFY(status.reconnections >= 1);
        // Only new bytes travelled after the reconnection: what was copied is exactly the
        // three files, not a byte more.
        const std::string dir = runDir.toStdString();
        QCOMPARE(status.bytesCopied, fileSize(dir + "/config.json") + fileSize(dir + "/events.jsonl") +
                                         fileSize(dir + "/summary.json"));
    }

    void aTornLastLineWaitsForItsEnd() {
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const std::string dir = makeRun(tmp.filePath(QStringLiteral("run")).toStdString(),
                                        std::string(kRunStart) + "{\"type\":\"st");
        RemoteRunMirror mirror(addressOf(QString::fromStdString(dir)), quickOptions(*server_));
        mirror.waitUntilSynced();
        RunFollower follower(mirror.localDirectory());
        QCOMPARE(follower.poll().size(), std::size_t(1));  // the torn line waits
        writeFile(dir + "/events.jsonl", "ep\",\"step\":1}\n", true);
        std::vector<json> rest;
        QElapsedTimer time;
        time.start();
        while (rest.empty() && time.elapsed() < 10000) {
            rest = follower.poll();
            QThread::msleep(20);
        }
        QCOMPARE(rest.size(), std::size_t(1));
        QCOMPARE(rest[0].value("step", 0), 1);
    }

    void copiesAFolderOfRanks() {
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const std::string job = tmp.filePath(QStringLiteral("job")).toStdString();
        for (int rank = 0; rank < 2; ++rank) {
            std::string events = kRunStart;
            for (int step = 1; step <= 5 + rank; ++step)
                events += "{\"type\":\"step\",\"step\":" + std::to_string(step) + "}\n";
            const std::string dir = makeRun(job + "/rank-" + std::to_string(rank), events);
            writeFile(dir + "/summary.json", R"({"status": "finished"})");
        }
        QDir().mkpath(QString::fromStdString(job + "/not a run"));  // no config.json: left out
        RemoteRunMirror mirror(addressOf(QString::fromStdString(job)), quickOptions(*server_, false));
        mirror.waitUntilSynced();
        QElapsedTimer time;
        time.start();
        while (mirror.status().state != RemoteRunMirror::State::Finished && time.elapsed() < 10000)
            QThread::msleep(20);
        QCOMPARE(mirror.status().state, RemoteRunMirror::State::Finished);
        const std::vector<std::string> ranks = ampscope::rankRunDirectories(mirror.localDirectory());
        QCOMPARE(ranks.size(), std::size_t(2));
        for (int rank = 0; rank < 2; ++rank) {
            const auto copy = ampscope::readRunDirectory(ranks[static_cast<std::size_t>(rank)]);
            const auto original = ampscope::readRunDirectory(job + "/rank-" + std::to_string(rank));
            QVERIFY(copy.complete);
            QCOMPARE(copy.events, original.events);
            QCOMPARE(copy.summary, original.summary);
        }
        QVERIFY(!QDir(QString::fromStdString(mirror.localDirectory() + "/not a run")).exists());
        // The copy goes with the mirror.
        const std::string local = mirror.localDirectory();
        QVERIFY(QDir(QString::fromStdString(local)).exists());
    }

    void theCopyIsRemovedWithTheMirror() {
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const std::string dir = makeRun(tmp.filePath(QStringLiteral("run")).toStdString());
        std::string local;
        {
            RemoteRunMirror mirror(addressOf(QString::fromStdString(dir)), quickOptions(*server_));
            mirror.waitUntilSynced();
            local = mirror.localDirectory();
            QVERIFY(QFile::exists(QString::fromStdString(local + "/config.json")));
        }
        QVERIFY(!QDir(QString::fromStdString(local)).exists());
    }

    void followsThroughAJumpHostAndEndsBothSshProcesses() {
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const std::string dir = makeRun(tmp.filePath(QStringLiteral("run")).toStdString(), kRunStart);
        const auto sshProcesses = [] {
            int count = 0;
            for (pid_t pid : SshServer::descendants(::getpid())) {
                std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
                std::string name;
                std::getline(comm, name);
                count += name == "ssh";
            }
            return count;
        };
        {
            RemoteRunMirror mirror(addressOf(QString::fromStdString(dir), SshServer::kJumpHost),
                                   quickOptions(*server_));
            mirror.waitUntilSynced();
            QVERIFY(QFile::exists(QString::fromStdString(mirror.localDirectory() + "/events.jsonl")));
            QCOMPARE(sshProcesses(), 2);  // ssh, and the one ProxyJump started for the jump
        }
        QCOMPARE(sshProcesses(), 0);
    }

    void badInputsGetOneLine_data() {
        QTest::addColumn<QString>("input");
        for (const char* name : {"unknown host", "refused", "authentication", "unknown host key",
                                 "no such path", "a file", "not a run", "symbolic link", "permission denied"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void badInputsGetOneLine() {
        QFETCH(QString, input);
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const QString empty = tmp.filePath(QStringLiteral("empty"));
        QDir().mkpath(empty);
        const QString run = tmp.filePath(QStringLiteral("run"));
        QDir().mkpath(run);
        writeFile((run + QStringLiteral("/config.json")).toStdString(), "{}");
        const RemoteMirrorOptions options = quickOptions(*server_);
        QString got, expected;
        if (input == QLatin1String("unknown host")) {
            got = failureOf(ampscope::parseRemoteRunAddress("ssh://nohost.invalid/x"), options);
            expected = QStringLiteral("unknown host nohost.invalid (ssh could not resolve it; is it in ~/.ssh/config?)");
        } else if (input == QLatin1String("refused")) {
            const int closed = SshServer::freePort();  // nothing listens there
            got = failureOf(ampscope::parseRemoteRunAddress("ssh://127.0.0.1:" + std::to_string(closed) + "/x"),
                            options);
            expected = QStringLiteral("127.0.0.1 port %1 refused the connection (no SSH server listening there)")
                           .arg(closed);
        } else if (input == QLatin1String("authentication")) {
            got = failureOf(addressOf(run, SshServer::kWrongKeyHost), options);
            expected = QStringLiteral("ssh://ampscope-test-wrong-key: authentication failed (");
        } else if (input == QLatin1String("unknown host key")) {
            got = failureOf(addressOf(run, SshServer::kUnknownKeyHost), options);
            expected = QStringLiteral("ssh://ampscope-test-unknown-key: the host key is not known; connect once "
                                      "with ssh in a terminal to check and accept it");
        } else if (input == QLatin1String("no such path")) {
            got = failureOf(addressOf(tmp.filePath(QStringLiteral("missing"))), options);
            expected = QStringLiteral("ampscope-test:%1: no such run directory").arg(tmp.filePath(QStringLiteral("missing")));
        } else if (input == QLatin1String("a file")) {
            got = failureOf(addressOf(run + QStringLiteral("/config.json")), options);
            expected = QStringLiteral("ampscope-test:%1/config.json: is a file, not a run directory").arg(run);
        } else if (input == QLatin1String("not a run")) {
            got = failureOf(addressOf(empty), options);
            expected = QStringLiteral("ampscope-test:%1: missing config.json — not an AmpScope run directory "
                                      "(nor a folder of runs)").arg(empty);
        } else if (input == QLatin1String("symbolic link")) {
            QVERIFY(QFile::link(QStringLiteral("/etc/passwd"), run + QStringLiteral("/events.jsonl")));
            got = failureOf(addressOf(run), options);
            expected = QStringLiteral("ampscope-test:%1/events.jsonl: is a symbolic link; a run directory's "
                                      "files must be plain files inside it").arg(run);
        } else if (input == QLatin1String("permission denied")) {
            if (::geteuid() == 0) QSKIP("running as root, which reads every file");
            QFile::setPermissions(run, QFileDevice::WriteOwner);
            got = failureOf(addressOf(run), options);
            QFile::setPermissions(run, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
            expected = QStringLiteral("ampscope-test:%1: cannot open (Permission denied)").arg(run);
        }
        if (input == QLatin1String("authentication")) {
            QVERIFY2(got.startsWith(expected) && got.contains(QLatin1String("Permission denied (publickey)")) &&
                         got.endsWith(QLatin1String("load a key into ssh-agent or name one in ~/.ssh/config")),
                     qPrintable(got));
        } else {
            QCOMPARE(got, expected);
        }
        QVERIFY(!got.contains(QLatin1Char('\n')));
    }

    void noSshProgramIsOneLine() {
        RemoteMirrorOptions options;
        options.ssh.program = "/nonexistent/ssh";
        QCOMPARE(failureOf(ampscope::parseRemoteRunAddress("ssh://host/run"), options),
                 QStringLiteral("ssh: cannot run '/nonexistent/ssh' (No such file or directory); "
                                "install openssh-client"));
    }

    void aConnectionDroppedForGoodEndsWithOneLine() {
        AMPSCOPE_SKIP_WITHOUT_SSHD(server());
        QTemporaryDir tmp;
        const std::string dir = makeRun(tmp.filePath(QStringLiteral("run")).toStdString(), kRunStart);
        RemoteMirrorOptions options = quickOptions(*server_);
        options.giveUpSeconds = 1;
        RemoteRunMirror mirror(addressOf(QString::fromStdString(dir)), options);
        mirror.waitUntilSynced();
        server_->kill();
        QElapsedTimer time;
        time.start();
        while (mirror.status().state != RemoteRunMirror::State::Failed && time.elapsed() < 30000)
            QThread::msleep(20);
        const QString message = QString::fromStdString(mirror.status().message);
        QVERIFY(server_->start());
        QCOMPARE(mirror.status().state, RemoteRunMirror::State::Failed);
        QVERIFY2(message.startsWith(QStringLiteral("ampscope-test:%1: connection lost and not regained in 1 s (last try: ")
                                        .arg(QString::fromStdString(dir))),
                 qPrintable(message));
        QVERIFY2(message.endsWith(QLatin1String(")")), qPrintable(message));
        // What arrived stays readable.
        QCOMPARE(ampscope::readRunDirectory(mirror.localDirectory()).events.size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestRemoteRun)
#include "test_remote_run.moc"
