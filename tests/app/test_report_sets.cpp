// `ampscope-cli report` on folders of runs: a scenario's output folder (what
// `run --scenario NAME --out DIR` writes) and a job's folder of ranks (rank-N, as the
// recorder writes under torch.distributed) report every run they hold, in the order the
// window opens them; a folder with no run in it is one clear line. A job of many ranks
// (8 or more: core's ManyRuns rule) gets pages for its first rank and its outliers only,
// and one table on the first page for the rest: a 12-rank job written here as the recorder
// writes it, rank 7's loss NaN at step 30 and rank 4's steps twice as long, reports three
// sections, and the table's count and final-loss range are those of the other nine ranks'
// summary.json, read here; a 7-rank job keeps a section per rank; nine seeds of one config
// are reported the same way.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtCore/QFileInfo>
#include <QtTest/QtTest>
#include <algorithm>
#include <cmath>
#include <fstream>
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
        if (title != QLatin1String("Side by side") && title != QLatin1String("The runs together") &&
            title != QLatin1String("Against the seed band"))
            titles << title;
    }
    return titles;
}

// A synthetic job of `ranks` ranks as the recorder writes one (JOB/rank-N: config.json,
// events.jsonl with run_start, run_info and a step line per step, summary.json): every
// rank's loss a little apart; rank kNanRank's loss NaN at step kNanStep (the first
// non-finite), rank kSlowRank's steps twice as long (a straggler).
constexpr int kJobSteps = 60, kNanRank = 7, kNanStep = 30, kSlowRank = 4;

double rankLoss(int rank, int step) {
    return 2.0 * std::exp(-step / 20.0) + 0.3 + 0.002 * rank + 0.001 * std::sin(step + rank);
}

// One member: a job's rank, or (seeded) one seed of a config.
bool writeSyntheticRun(const QString& dir, int rank, int seed = 5) {
    if (!QDir().mkpath(dir)) return false;
    json config = smallRun("fp16");
    config["name"] = QFileInfo(dir).fileName().toStdString();
    config["seed"] = seed;
    std::ofstream(QFile::encodeName(dir + "/config.json").toStdString()) << config.dump();
    std::ofstream events(QFile::encodeName(dir + "/events.jsonl").toStdString());
    events << json{{"type", "run_start"}, {"schema_version", 1}, {"device", "cpu"}, {"threads", 1},
                   {"time", "2026-01-01T00:00:00Z"}}.dump()
           << '\n';
    events << json{{"type", "run_info"}, {"layers", {"fc1", "out"}}, {"model", "mlp"}, {"parameters", 100},
                   {"device", "cpu"}}.dump()
           << '\n';
    for (int step = 1; step <= kJobSteps; ++step) {
        const double seconds = (rank == kSlowRank ? 0.02 : 0.01) * (1.0 + 0.01 * std::sin(step + rank));
        json line{{"type", "step"}, {"step", step}, {"epoch", 1}, {"loss", rankLoss(rank, step)},
                  {"step_seconds", seconds}, {"samples_per_second", 32.0 / seconds}, {"scale", 65536.0}};
        if (rank == kNanRank && step == kNanStep) line["loss"] = nullptr, line["loss_nonfinite"] = "nan";
        events << line.dump() << '\n';
    }
    events << json{{"type", "run_end"}, {"status", "finished"}}.dump() << '\n';
    std::ofstream(QFile::encodeName(dir + "/summary.json").toStdString())
        << json{{"status", "finished"}, {"steps", kJobSteps}, {"final_train_loss", rankLoss(rank, kJobSteps)},
                {"val_accuracy", 0.8 + 0.005 * rank}}.dump();
    return true;
}

bool writeSyntheticJob(const QString& job, int ranks) {
    for (int rank = 0; rank < ranks; ++rank)
        if (!writeSyntheticRun(QStringLiteral("%1/rank-%2").arg(job).arg(rank), rank)) return false;
    return true;
}

json summaryOf(const QString& dir) {
    return json::parse(readText(dir + QStringLiteral("/summary.json")).toStdString());
}

// The two numbers of a digest row "KEY | LO to HI", as the report printed them.
bool rangeRow(const QString& html, const QString& key, double& lo, double& hi) {
    const QRegularExpression row(QStringLiteral("<td class=\"key\">%1</td><td>([-+0-9.e]+)(?: %)? to ([-+0-9.e]+)")
                                     .arg(QRegularExpression::escape(key)));
    const QRegularExpressionMatch m = row.match(html);
    if (!m.hasMatch()) return false;
    bool ok1 = false, ok2 = false;
    lo = m.captured(1).toDouble(&ok1);
    hi = m.captured(2).toDouble(&ok2);
    return ok1 && ok2;
}

// `ampscope-cli report RUNS --out OUT`, its HTML read into html; false (the CLI's
// message printed) when the report fails.
bool reportHtml(const QStringList& runs, const QString& out, QString& html) {
    const auto r = test::runCli(QStringList{QStringLiteral("report")} + runs + QStringList{QStringLiteral("--out"), out});
    if (r.exitCode != 0) {
        qWarning("report exited with %d: %s", r.exitCode, qPrintable(r.err));
        return false;
    }
    html = readText(out);
    return true;
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
        QString html;
        QVERIFY(reportHtml({scenario_}, tmp_.filePath(QStringLiteral("scenario.html")), html));
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
        QString html;
        QVERIFY(reportHtml({job_}, tmp_.filePath(QStringLiteral("job.html")), html));
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

    // 12 ranks: pages for rank 0 (standing for the band), rank 4 (straggler) and rank 7
    // (first non-finite) only; the other nine accounted for in one table on the first page.
    void aManyRankJobHasPagesForItsFirstRankAndOutliersOnly() {
        const QString job = tmp_.filePath(QStringLiteral("job12"));
        QVERIFY(writeSyntheticJob(job, 12));
        QString html;
        QVERIFY(reportHtml({job}, tmp_.filePath(QStringLiteral("job12.html")), html));
        QCOMPARE(sectionTitles(html), (QStringList{QStringLiteral("job12/rank-0"), QStringLiteral("job12/rank-4"),
                                                   QStringLiteral("job12/rank-7")}));
        // The job's sentence stays, naming the rank the NaN came from.
        QVERIFY2(html.contains(QStringLiteral("<b>Job %1</b> (12 ranks): no rank recorded where it went non-finite; "
                                              "the loss went non-finite first on rank %2, at step %3.")
                                   .arg(job)
                                   .arg(kNanRank)
                                   .arg(kNanStep)),
                 qPrintable(html.left(3000)));
        QVERIFY(html.contains(QStringLiteral("job12/rank-7 (first non-finite, at step %1)").arg(kNanStep)));
        QVERIFY(html.contains(QStringLiteral("job12/rank-4 (straggler")));
        // 12 - 3 with pages = 9 accounted for, by rank number.
        QVERIFY(html.contains(QStringLiteral("The other 9 ranks are accounted for here: every one of them is within "
                                             "the band")));
        QVERIFY(html.contains(QStringLiteral("9 ranks: ranks 1-3, 5-6, 8-11")));
        QVERIFY(html.contains(QStringLiteral("in their run folders in %1").arg(job)));
        // The range of the nine's final train loss and accuracy, from their summary.json.
        double lossLo = INFINITY, lossHi = -INFINITY, accLo = INFINITY, accHi = -INFINITY;
        for (const int rank : {1, 2, 3, 5, 6, 8, 9, 10, 11}) {
            const json summary = summaryOf(QStringLiteral("%1/rank-%2").arg(job).arg(rank));
            lossLo = std::min(lossLo, summary["final_train_loss"].get<double>());
            lossHi = std::max(lossHi, summary["final_train_loss"].get<double>());
            accLo = std::min(accLo, 100.0 * summary["val_accuracy"].get<double>());
            accHi = std::max(accHi, 100.0 * summary["val_accuracy"].get<double>());
        }
        double lo = 0, hi = 0;
        QVERIFY(rangeRow(html, QStringLiteral("Final train loss"), lo, hi));
        // Printed to 5 significant digits: within half a unit of the fifth digit.
        QVERIFY2(std::abs(lo - lossLo) <= 5e-5 * lossLo && std::abs(hi - lossHi) <= 5e-5 * lossHi,
                 qPrintable(QStringLiteral("%1 to %2, expected %3 to %4").arg(lo).arg(hi).arg(lossLo).arg(lossHi)));
        QVERIFY(rangeRow(html, QStringLiteral("Val accuracy"), lo, hi));
        QVERIFY(std::abs(lo - accLo) <= 5e-4 * accLo && std::abs(hi - accHi) <= 5e-4 * accHi);
        // The median of the nine's median step times, from the step times written above.
        std::vector<double> medians;
        for (const int rank : {1, 2, 3, 5, 6, 8, 9, 10, 11}) {
            std::vector<double> ms;
            for (int step = 1; step <= kJobSteps; ++step) ms.push_back(10.0 * (1.0 + 0.01 * std::sin(step + rank)));
            std::sort(ms.begin(), ms.end());
            medians.push_back((ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2.0);
        }
        std::sort(medians.begin(), medians.end());
        const QRegularExpressionMatch stepRow =
            QRegularExpression(QStringLiteral("<td class=\"key\">Median step time</td><td>([0-9.]+) ms")).match(html);
        QVERIFY(stepRow.hasMatch());
        // Printed to 3 significant digits (10.0 ms: within 0.05 ms).
        QVERIFY2(std::abs(stepRow.captured(1).toDouble() - medians[4]) <= 0.05,
                 qPrintable(stepRow.captured(1) + QStringLiteral(" ms, expected %1").arg(medians[4])));
        // The side-by-side table holds the three runs with pages (and its key column).
        const qsizetype side = html.indexOf(QStringLiteral("<h2>Side by side</h2>"));
        QVERIFY(side > 0);
        const QString sideTable = html.mid(side, html.indexOf(QStringLiteral("</table>"), side) - side);
        QCOMPARE(sideTable.count(QStringLiteral("<th>")), 4);
        // The PDF of the same job is written too.
        const QString pdf = tmp_.filePath(QStringLiteral("job12.pdf"));
        QCOMPARE(test::runCli({QStringLiteral("report"), job, QStringLiteral("--out"), pdf}).exitCode, 0);
        QVERIFY(readText(pdf).startsWith(QStringLiteral("%PDF-")));
    }

    // Below the band's 8 ranks, every rank keeps its pages and no rank is accounted for.
    void aSmallJobKeepsASectionPerRank() {
        const QString job = tmp_.filePath(QStringLiteral("job7"));
        QVERIFY(writeSyntheticJob(job, 7));
        QString html;
        QVERIFY(reportHtml({job}, tmp_.filePath(QStringLiteral("job7.html")), html));
        QStringList expected;
        for (int rank = 0; rank < 7; ++rank) expected << QStringLiteral("job7/rank-%1").arg(rank);
        QCOMPARE(sectionTitles(html), expected);
        QVERIFY(!html.contains(QStringLiteral("as one band</h3>")));
        QVERIFY(html.contains(QStringLiteral("(7 ranks):")));
    }

    // Nine seeds of one config (no job folder) are a band too: pages for seed-0, standing
    // for it, and seed-4 (straggler) and seed-7 (NaN), planted as the job's ranks 4 and 7;
    // the six others named in the table, with the folder they are in.
    void nineSeedsOfOneConfigAreABand() {
        QStringList dirs;
        for (int i = 0; i < 9; ++i) {
            dirs << tmp_.filePath(QStringLiteral("seeds/seed-%1").arg(i));
            QVERIFY(writeSyntheticRun(dirs.back(), i, 100 + i));
        }
        QString html;
        QVERIFY(reportHtml(dirs, tmp_.filePath(QStringLiteral("seeds.html")), html));
        QCOMPARE(sectionTitles(html),
                 (QStringList{QStringLiteral("seed-0"), QStringLiteral("seed-4"), QStringLiteral("seed-7")}));
        QVERIFY(html.contains(QStringLiteral("9 seeds as one band</h3>")));
        QVERIFY(html.contains(QStringLiteral("6 seeds: seed-1, seed-2, seed-3, seed-5, seed-6, seed-8")));
        QVERIFY(html.contains(QStringLiteral("in their run folders in %1").arg(tmp_.filePath(QStringLiteral("seeds")))));
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
