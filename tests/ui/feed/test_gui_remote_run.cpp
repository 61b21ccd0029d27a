// The window and runs elsewhere: a run on "another machine" (ssh:// through a real sshd
// on 127.0.0.1, SshServer.h) opened and followed live, through a server killed and
// restarted ("reconnecting…" in the status bar), closed with its ssh processes; a bad
// address in one line; a job folder of ranks naming the rank its NaN came from.
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <QtWidgets/QApplication>
#include <QtWidgets/QLabel>
#include <QtWidgets/QListWidget>

#include <fstream>
#include <string>
#include <unistd.h>

#include "ExactCompare.h"
#include "window/MainWindow.h"
#include "SshServer.h"
#include "feed/RunOpener.h"
#include "views/RunListView.h"

using ampscope::test::SshServer;
using ampscope::ui::MainWindow;
using ampscope::ui::MainWindowOptions;

namespace {

void append(const QString& path, const std::string& text) {
    std::ofstream(path.toStdString(), std::ios::app) << text;
}

std::string stepLine(int step) {
    return "{\"type\":\"step\",\"step\":" + std::to_string(step) +
           ",\"epoch\":1,\"loss\":0.5,\"lr\":0.01,\"scale\":1,\"scale_after\":1}\n";
}

// The ssh processes this test process started (its children named ssh).
int sshChildren() {
    int count = 0;
    const QString me = QString::number(::getpid());
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
        if (!stat.open(QIODevice::ReadOnly)) continue;
        const QString line = QString::fromLatin1(stat.readAll());
        const int close = line.lastIndexOf(QLatin1Char(')'));
        if (close < 0) continue;
        const QString name = line.mid(line.indexOf(QLatin1Char('(')) + 1, close - line.indexOf(QLatin1Char('(')) - 1);
        const QStringList fields = line.mid(close + 2).split(QLatin1Char(' '));
        if (name == QLatin1String("ssh") && fields.size() > 1 && fields[1] == me) ++count;
    }
    return count;
}

// A run directory written by hand: config.json and events.jsonl (run_start, then `steps`
// step records).
QString makeRun(const QString& dir, int steps) {
    QDir().mkpath(dir);
    append(dir + QStringLiteral("/config.json"), R"({"schema_version": 1})");
    std::string lines = "{\"type\":\"run_start\",\"schema_version\":1}\n";
    for (int step = 1; step <= steps; ++step) lines += stepLine(step);
    append(dir + QStringLiteral("/events.jsonl"), lines);
    return dir;
}

// The server's ssh_config for the suite's ssh, and back to none at the end of a case.
struct SshConfigInUse {
    explicit SshConfigInUse(const SshServer& server) {
        qputenv("AMPSCOPE_SSH_CONFIG", server.sshConfig().toLocal8Bit());
    }
    ~SshConfigInUse() { qunsetenv("AMPSCOPE_SSH_CONFIG"); }
};

bool waitFor(const std::function<bool()>& condition, int milliseconds = 30000) {
    QElapsedTimer time;
    time.start();
    while (!condition()) {
        if (time.elapsed() > milliseconds) return false;
        QTest::qWait(20);
    }
    return true;
}

MainWindowOptions testOptions() {
    MainWindowOptions o;
    o.persistSettings = false;
    return o;
}

}  // namespace

class TestGuiRemoteRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void followsARunOnAnotherMachine() {
        SshServer server;
        AMPSCOPE_SKIP_WITHOUT_SSHD(server);
        const SshConfigInUse config(server);
        QTemporaryDir tmp;
        const QString run = makeRun(tmp.filePath(QStringLiteral("run")), 5);

        QString copy;
        {
            MainWindow window(testOptions());
            window.show();
            QString error;
            QVERIFY2(window.openRun(SshServer::address(run), &error), qPrintable(error));
            QVERIFY(window.isFollowingRun());
            const QString shown = QStringLiteral("ampscope-test:") + run;
            QVERIFY2(window.runStatusText().startsWith(QStringLiteral("Following %1").arg(shown)),
                     qPrintable(window.runStatusText()));
            QVERIFY(waitFor([&] { return window.stepsShown() == 5; }));
            copy = window.runDirectory();
            QVERIFY(!copy.startsWith(tmp.path()));  // a copy, not the folder itself
            QCOMPARE(sshChildren(), 1);

            // The server goes away: the status bar says so, and the run stays followed.
            server.kill();
            QVERIFY2(waitFor([&] { return window.runStatusText().contains(QStringLiteral("· reconnecting…")); }),
                     qPrintable(window.runStatusText()));
            QVERIFY(window.runStatusText().startsWith(QStringLiteral("Following %1 · reconnecting…").arg(shown)));
            for (int step = 6; step <= 9; ++step) append(run + QStringLiteral("/events.jsonl"), stepLine(step));
            QVERIFY(server.start());
            QVERIFY2(waitFor([&] { return window.stepsShown() == 9; }), qPrintable(window.runStatusText()));
            // Back to the run's own line (the connection's state is looked at every 250 ms).
            QVERIFY2(waitFor([&] { return !window.runStatusText().contains(QStringLiteral("reconnecting")); }, 5000),
                     qPrintable(window.runStatusText()));
            QVERIFY(window.runStatusText().startsWith(QStringLiteral("Following %1").arg(shown)));

            // The run ends: its summary arrives after its last records, and following stops.
            append(run + QStringLiteral("/events.jsonl"), stepLine(10));
            append(run + QStringLiteral("/summary.json"), R"({"status": "finished"})");
            QVERIFY(waitFor([&] { return !window.isFollowingRun(); }));
            QCOMPARE(window.stepsShown(), qint64(10));
            QVERIFY(QDir(copy).exists());
            window.close();
            // Closing the run ended ssh and removed the copy.
            QCOMPARE(sshChildren(), 0);
            QVERIFY(!QDir(copy).exists());
        }
    }

    void openingAnotherRunEndsTheConnection() {
        SshServer server;
        AMPSCOPE_SKIP_WITHOUT_SSHD(server);
        const SshConfigInUse config(server);
        QTemporaryDir tmp;
        const QString run = makeRun(tmp.filePath(QStringLiteral("run")), 1);
        MainWindow window(testOptions());
        QString error;
        QVERIFY2(window.openRun(SshServer::address(run), &error), qPrintable(error));
        QCOMPARE(sshChildren(), 1);
        QVERIFY2(window.openRun(run, &error), qPrintable(error));  // the same run, from the disk
        QCOMPARE(sshChildren(), 0);
        QCOMPARE(window.runDirectory(), run);
    }

    void aBadAddressIsOneLine() {
        SshServer server;
        AMPSCOPE_SKIP_WITHOUT_SSHD(server);
        const SshConfigInUse config(server);
        QTemporaryDir tmp;
        MainWindow window(testOptions());
        QString error;
        QVERIFY(!window.openRun(SshServer::address(tmp.filePath(QStringLiteral("missing"))), &error));
        QCOMPARE(error, QStringLiteral("ampscope-test:%1: no such run directory").arg(tmp.filePath(QStringLiteral("missing"))));
        QVERIFY(!window.openRun(QStringLiteral("ssh://ampscope-test"), &error));
        QCOMPARE(error, QStringLiteral("ssh://ampscope-test: no path after the host (ssh://[user@]host[:port]/path)"));
        QCOMPARE(sshChildren(), 0);
    }

    void aJobFolderNamesTheRankItsNanCameFrom() {
        QTemporaryDir tmp;
        const QString job = tmp.filePath(QStringLiteral("ddp"));
        const std::string common =
            "\"layer_index\":0,\"nan\":1,\"neg_inf\":0,\"numel\":64,\"pos_inf\":0,\"step\":15,"
            "\"type\":\"nonfinite\",\"frames\":[]";
        const char* events[2] = {
            "\"layer\":\"body.0\",\"phase\":\"backward\",\"tensor\":\"param_grad\",\"via\":\"gradient_allreduce\",",
            "\"layer\":\"body.2\",\"phase\":\"forward\",\"tensor\":\"activation\","};
        for (int rank = 0; rank < 2; ++rank) {
            const QString dir = makeRun(job + QStringLiteral("/rank-%1").arg(rank), 15);
            append(dir + QStringLiteral("/events.jsonl"), std::string("{") + events[rank] + common + "}\n");
            append(dir + QStringLiteral("/summary.json"), R"({"status": "finished"})");
        }
        MainWindow window(testOptions());
        QString error;
        QVERIFY2(window.openRun(job, &error), qPrintable(error));
        const QString origin = QStringLiteral(
            "rank 1 went non-finite first, at step 15 in body.2 (forward); "
            "rank 0 received it through the gradient all-reduce at step 15");
        // The views show the rank where it appeared, not the one that received it first in
        // the list; the Runs list marks each rank's fate and the status bar names the origin.
        QCOMPARE(window.runDirectory(), job + QStringLiteral("/rank-1"));
        QCOMPARE(window.opener()->jobOrigin(), origin);
        QVERIFY2(window.runStatusText().endsWith(QStringLiteral(" · ") + origin), qPrintable(window.runStatusText()));
        QListWidget* runs = window.views().runs->list();
        QCOMPARE(runs->count(), 2);
        QVERIFY2(runs->item(0)->text().contains(QStringLiteral("non-finite via all-reduce, step 15")),
                 qPrintable(runs->item(0)->text()));
        QVERIFY2(runs->item(1)->text().contains(QStringLiteral("non-finite at step 15")),
                 qPrintable(runs->item(1)->text()));
    }
};

QTEST_MAIN(TestGuiRemoteRun)
#include "test_gui_remote_run.moc"
