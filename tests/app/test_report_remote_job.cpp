// A recorder job on "another machine", end to end: the two-rank gloo job of the recorder's
// distributed suite (tests/python/ddp_job.py: a NaN put into rank 1's body.2 output at
// step 15) followed live through a real sshd on 127.0.0.1 (SshServer.h) while it trains,
// the server killed and restarted mid-run; every record each rank wrote arrives once, in
// order; then the job's report and the window, both over SSH, name rank 1 as the origin.
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ExactCompare.h"
#include "SshServer.h"
#include "TestSupport.h"
#include "run/JobNonFiniteOrigin.h"
#include "run/RemoteRunAddress.h"
#include "run/RemoteRunMirror.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"

using ampscope::RemoteMirrorOptions;
using ampscope::RemoteRunMirror;
using ampscope::RunFollower;
using ampscope::test::SshServer;
using nlohmann::json;

namespace {

constexpr int kSteps = 18;  // ddp_job.py's defaults: the fault at step 15 of 18
// JobNonFiniteOrigin's sentence for the job, as the report and the window give it.
const QString kOrigin = QStringLiteral(
    "rank 1 went non-finite first, at step 15 in body.2 (forward); "
    "rank 0 received it through the gradient all-reduce at step 15");

QString readText(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool bothRanksStarted(const QString& job) {
    return QFile::exists(job + QStringLiteral("/rank-0/config.json")) &&
           QFile::exists(job + QStringLiteral("/rank-1/config.json"));
}

}  // namespace

class TestReportRemoteJob : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void followsAJobThroughARestartAndReportsItsOrigin() {
        if (qEnvironmentVariableIsSet("AMPSCOPE_NO_PYTHON_TORCH"))
            QSKIP("built without a Python that has torch (AMPSCOPE_NO_PYTHON_TORCH): no job to record");
        SshServer server;
        AMPSCOPE_SKIP_WITHOUT_SSHD(server);
        QTemporaryDir tmp;
        const QString job = tmp.filePath(QStringLiteral("ddp"));

        // The ranks take their first step once the follower is connected (`go` exists), and
        // sleep 0.15 s after each, so the job is still training when the server goes down
        // after their second step.
        const QString go = tmp.filePath(QStringLiteral("go"));
        QProcess ranks;
        ranks.setProcessChannelMode(QProcess::ForwardedChannels);
        ranks.start(QString::fromStdString(ampscope::test::envOr("AMPSCOPE_PYTHON", "/usr/bin/python3")),
                    {QString::fromStdString(ampscope::test::sourceDir()) + QStringLiteral("/tests/python/ddp_job.py"),
                     tmp.path(), QStringLiteral("--step-pause"), QStringLiteral("0.15"), QStringLiteral("--start-when"), go});
        QVERIFY(ranks.waitForStarted(10000));
        QElapsedTimer waited;
        waited.start();
        while (!bothRanksStarted(job) && ranks.state() == QProcess::Running && waited.elapsed() < 120000)
            QThread::msleep(20);
        QVERIFY2(bothRanksStarted(job), "the ranks did not start (their errors are above)");

        RemoteMirrorOptions options;
        options.ssh.configFile = server.sshConfig().toStdString();
        options.pollSeconds = 0.05;
        options.firstRetrySeconds = 0.2;
        options.maxRetrySeconds = 1.0;
        options.giveUpSeconds = 60;
        RemoteRunMirror mirror(ampscope::parseRemoteRunAddress(SshServer::address(job).toStdString()), options);
        mirror.waitUntilSynced();
        const std::vector<std::string> copies = ampscope::rankRunDirectories(mirror.localDirectory());
        QCOMPARE(copies.size(), std::size_t(2));
        std::array<std::unique_ptr<RunFollower>, 2> followers{std::make_unique<RunFollower>(copies[0]),
                                                              std::make_unique<RunFollower>(copies[1])};
        std::array<std::vector<json>, 2> followed;
        std::array<int, 2> steps{0, 0};
        QFile(go).open(QIODevice::WriteOnly);

        bool killed = false, killedMidRun = false, sawReconnecting = false;
        QElapsedTimer time;
        time.start();
        while (!(followers[0]->finished() && followers[1]->finished()) && time.elapsed() < 180000 &&
               mirror.status().state != RemoteRunMirror::State::Failed) {
            for (std::size_t rank = 0; rank < 2; ++rank)
                for (json& record : followers[rank]->poll()) {
                    if (record.value("type", std::string()) == "step") ++steps[rank];
                    followed[rank].push_back(std::move(record));
                }
            if (!killed && steps[0] >= 2 && steps[1] >= 2) {
                // sshd and every session under it: the connection drops mid-run.
                killedMidRun = !QFile::exists(job + QStringLiteral("/rank-0/summary.json")) &&
                               !QFile::exists(job + QStringLiteral("/rank-1/summary.json"));
                server.kill();
                killed = true;
                QElapsedTimer down;
                down.start();
                while (down.elapsed() < 10000 && mirror.status().state != RemoteRunMirror::State::Reconnecting)
                    QThread::msleep(10);
                sawReconnecting = mirror.status().state == RemoteRunMirror::State::Reconnecting;
                QThread::msleep(1000);  // a while without a server: retries are refused
                QVERIFY(server.start());
            }
            QThread::msleep(30);
        }
        QVERIFY(ranks.waitForFinished(120000));
        QCOMPARE(ranks.exitCode(), 0);
        QVERIFY(killed);
        QVERIFY2(killedMidRun, "the job ended before the server was killed");
        QVERIFY(sawReconnecting);
        // The copy holds both summaries a moment before the remote side's last line ends
        // the session.
        QElapsedTimer ending;
        ending.start();
        while (mirror.status().state != RemoteRunMirror::State::Finished &&
               mirror.status().state != RemoteRunMirror::State::Failed && ending.elapsed() < 30000)
            QThread::msleep(10);
        const RemoteRunMirror::Status status = mirror.status();
        QVERIFY2(status.state == RemoteRunMirror::State::Finished,
                 qPrintable(QStringLiteral("%1: %2").arg(QString::fromLatin1(ampscope::remoteMirrorStateName(status.state)),
                                                        QString::fromStdString(status.message))));
        QVERIFY(status.reconnections >= 1);

        // Every record each rank wrote arrived once, in order: nothing lost or repeated
        // across the reconnection.
        for (std::size_t rank = 0; rank < 2; ++rank) {
            const ampscope::RunData written =
                ampscope::readRunDirectory(job.toStdString() + "/rank-" + std::to_string(rank));
            QVERIFY(written.complete);
            QCOMPARE(steps[rank], kSteps);
            QCOMPARE(followed[rank].size(), written.events.size());
            for (std::size_t i = 0; i < followed[rank].size(); ++i)
                QVERIFY2(followed[rank][i] == written.events[i],
                         qPrintable(QStringLiteral("rank %1, record %2").arg(rank).arg(i)));
        }
        // What the window's job view says of the followed copy.
        QCOMPARE(QString::fromStdString(ampscope::jobNonFiniteOriginOf(copies)), kOrigin);

        // The report, made over SSH.
        qputenv("AMPSCOPE_SSH_CONFIG", server.sshConfig().toLocal8Bit());
        const QString html = tmp.filePath(QStringLiteral("job.html"));
        const ampscope::test::CliResult report =
            ampscope::test::runCli({QStringLiteral("report"), SshServer::address(job), QStringLiteral("--out"), html});
        QVERIFY2(report.exitCode == 0, qPrintable(report.err));
        QVERIFY2(readText(html).contains(kOrigin), "the report does not name the origin");

        // The window, opening the job over SSH: its status line names the origin.
        QProcess window;
        window.start(QString::fromStdString(ampscope::test::envOr("AMPSCOPE_WINDOW", "ampscope")),
                     {QStringLiteral("--open-run"), SshServer::address(job), QStringLiteral("--screenshot"),
                      tmp.filePath(QStringLiteral("job.png"))});
        QVERIFY(window.waitForFinished(120000));
        qunsetenv("AMPSCOPE_SSH_CONFIG");
        const QString said = QString::fromUtf8(window.readAllStandardOutput());
        QVERIFY2(window.exitCode() == 0, qPrintable(QString::fromUtf8(window.readAllStandardError())));
        QVERIFY2(said.contains(QStringLiteral("ampscope: Opened 2 runs of ampscope-test:%1").arg(job)), qPrintable(said));
        QVERIFY2(said.contains(QStringLiteral(" \u00B7 ") + kOrigin + QLatin1Char('\n')), qPrintable(said));
    }
};

QTEST_GUILESS_MAIN(TestReportRemoteJob)
#include "test_report_remote_job.moc"
