// `ampscope-cli report` on folders of runs: a scenario's output folder (what
// `run --scenario NAME --out DIR` writes) and a job's folder of ranks (rank-N, as the
// recorder writes under torch.distributed) report every run they hold, in the order the
// window opens them; a folder with no run in it is one clear line.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtCore/QFileInfo>
#include <QtTest/QtTest>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "TestSupport.h"

using namespace ampscope;
using nlohmann::json;

namespace {

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

json smallRun(const std::string& mode) {
    return {{"schema_version", 1},
            {"name", "rank-" + mode},
            {"seed", 5},
            {"threads", 1},
            {"device", "cpu"},
            {"data", {{"dataset", "spirals"}, {"synthetic_samples", 256}, {"validation", "split"}, {"val_fraction", 0.25}}},
            {"model", {{"name", "mlp"}, {"hidden", {8}}}},
            {"precision", {{"mode", mode}}},
            {"train", {{"epochs", 1}, {"batch_size", 32}}},
            {"probes", {{"every", 2}}}};
}

bool record(const QTemporaryDir& tmp, const QString& dir, const json& config) {
    const QString configPath = tmp.filePath(QFileInfo(dir).fileName() + QStringLiteral(".json"));
    QFile file(configPath);
    if (!file.open(QIODevice::WriteOnly)) return false;
    file.write(QByteArray::fromStdString(config.dump()));
    file.close();
    const auto r = test::runCli({QStringLiteral("run"), configPath, QStringLiteral("--out"), dir, QStringLiteral("--quiet")});
    if (r.exitCode != 0) qWarning("run failed: %s", qPrintable(r.err));
    return r.exitCode == 0;
}

// The runs' section titles of an HTML report, in order.
QStringList sectionTitles(const QString& html) {
    QStringList titles;
    const QRegularExpression heading(QStringLiteral("<h2>([^<]*)</h2>"));
    for (auto it = heading.globalMatch(html); it.hasNext();) {
        const QString title = it.next().captured(1);
        if (title != QLatin1String("Side by side") && title != QLatin1String("The runs together")) titles << title;
    }
    return titles;
}

}  // namespace

class ReportSetsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString scenario_, job_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        scenario_ = tmp_.filePath(QStringLiteral("fp16-no-scaler"));
        const auto r = test::runCli({QStringLiteral("run"), QStringLiteral("--scenario"), QStringLiteral("fp16-no-scaler"),
                                     QStringLiteral("--out"), scenario_, QStringLiteral("--set"),
                                     QStringLiteral("train.max_steps=12"), QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        job_ = tmp_.filePath(QStringLiteral("job"));
        // Ranks 10, 2 and 0: ordered by their number, not as text.
        QVERIFY(record(tmp_, job_ + QStringLiteral("/rank-10"), smallRun("bf16")));
        QVERIFY(record(tmp_, job_ + QStringLiteral("/rank-2"), smallRun("fp16")));
        QVERIFY(record(tmp_, job_ + QStringLiteral("/rank-0"), smallRun("fp32")));
    }

    // The scenario's runs, in the order they ran (its narrative speaks of "the first run").
    void aScenarioFolderIsReportedAsItsRuns() {
        const QString out = tmp_.filePath(QStringLiteral("scenario.html"));
        const auto r = test::runCli({QStringLiteral("report"), scenario_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        QVERIFY(html.contains(QStringLiteral("AmpScope comparison of 2 runs")));
        QCOMPARE(sectionTitles(html), (QStringList{QStringLiteral("no-scaler"), QStringLiteral("dynamic-scaler")}));
        QVERIFY(html.contains(QStringLiteral("<h2>Side by side</h2>")));
        // Then the runs together, before either run's own pages: overlaid, and the
        // histograms fp16 holds 16 binades apart (the dynamic scaler's 2^16) side by side.
        const qsizetype together = html.indexOf(QStringLiteral("<h2>The runs together</h2>"));
        QVERIFY(together > 0);
        QVERIFY(together < html.indexOf(QStringLiteral("<h2>no-scaler</h2>")));
        QVERIFY(html.contains(QStringLiteral("alt=\"Loss, all runs\"")));
        QVERIFY(html.contains(QStringLiteral("alt=\"Loss scale, all runs\"")));
        QVERIFY(html.contains(QStringLiteral("no-scaler against dynamic-scaler: 16.0 binades apart")));
        QVERIFY(html.contains(QStringLiteral("alt=\"no-scaler | dynamic-scaler\"")));
    }

    void aJobFolderIsReportedAsItsRanks() {
        const QString out = tmp_.filePath(QStringLiteral("job.html"));
        const auto r = test::runCli({QStringLiteral("report"), job_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        QVERIFY(html.contains(QStringLiteral("AmpScope comparison of 3 runs")));
        // A rank's title names its job, as the window's Runs list does.
        const QString job = QFileInfo(job_).fileName() + QLatin1Char('/');
        QCOMPARE(sectionTitles(html), (QStringList{job + QStringLiteral("rank-0"), job + QStringLiteral("rank-2"),
                                                   job + QStringLiteral("rank-10")}));
    }

    // Folders and runs mix: each is expanded where it stands.
    void foldersAndRunsMix() {
        const QString out = tmp_.filePath(QStringLiteral("mixed.pdf"));
        const auto r = test::runCli({QStringLiteral("report"), job_ + QStringLiteral("/rank-2"), scenario_,
                                     QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(readText(out).startsWith(QStringLiteral("%PDF-")));
        const QString html = tmp_.filePath(QStringLiteral("mixed.html"));
        QCOMPARE(test::runCli({QStringLiteral("report"), job_ + QStringLiteral("/rank-2"), scenario_,
                               QStringLiteral("--out"), html})
                     .exitCode,
                 0);
        QCOMPARE(sectionTitles(readText(html)), (QStringList{QStringLiteral("rank-2"), QStringLiteral("no-scaler"),
                                                             QStringLiteral("dynamic-scaler")}));
    }

    void aFolderWithoutRunsIsOneLine() {
        const QString empty = tmp_.filePath(QStringLiteral("nothing"));
        QVERIFY(QDir().mkpath(empty + QStringLiteral("/not-a-run")));
        const QString out = tmp_.filePath(QStringLiteral("nothing.pdf"));
        const auto r = test::runCli({QStringLiteral("report"), empty, QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("missing config.json")) &&
                     r.err.contains(QStringLiteral("nor a job's rank-N folders or a scenario's run folders")),
                 qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(ReportSetsTest)
#include "test_report_sets.moc"
