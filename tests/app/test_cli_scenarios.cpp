// `ampscope-cli scenarios` and `ampscope-cli run --scenario NAME --out DIR` as a user
// runs them: the list, the one-line error for an unknown name, a multi-run scenario
// recorded in DIR/<run-name>/ and ended by the side-by-side table, and a one-run
// scenario recorded straight into DIR.
#include <QtCore/QDir>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "TestSupport.h"

namespace {

struct CliResult {
    int exitCode = -1;
    QString out, err;
};

CliResult runCli(const QStringList& args, int timeoutMs = 240000) {
    QProcess process;
    process.start(QString::fromStdString(ampscope::test::cliPath()), args);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

nlohmann::json readJson(const QString& path) {
    std::ifstream file(path.toStdString());
    return nlohmann::json::parse(file);
}

const QStringList kNames = {"amp-sanity",       "fp16-no-scaler",         "bf16-no-scaler-needed",
                            "scale-dynamics",   "clip-without-unscale",   "log-of-small-sum",
                            "pure-fp16-lost-updates", "batchnorm-variance", "softmax-overflow",
                            "tiny-loss-scale-growth", "fp8-delayed-scaling-lag", "mx-outlier-block",
                            "nvfp4-gradient-rounding", "format-sweep"};

}  // namespace

class CliScenariosTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void listsEveryScenarioOnOneLine() {
        const auto r = runCli({"scenarios"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), kNames.size());
        for (int i = 0; i < kNames.size(); ++i) {
            QVERIFY2(lines[i].startsWith(kNames[i] + " "), qPrintable(lines[i]));
            QVERIFY2(lines[i].size() > kNames[i].size() + 20, qPrintable(lines[i]));  // a one-liner follows
        }
    }

    void unknownScenarioExitsTwoListingTheNames() {
        QTemporaryDir dir;
        const auto r = runCli({"run", "--scenario", "fp8-magic", "--out", dir.filePath("x")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY2(r.err.contains("fp8-magic"), qPrintable(r.err));
        for (const QString& name : kNames) QVERIFY2(r.err.contains(name), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("x")));
    }

    void badUsageIsOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("config and scenario") << QStringList{"run", "a.json", "--scenario", "amp-sanity", "--out", "d"}
                                             << "give one of CONFIG.json, --scenario NAME and --lesson PATH";
        QTest::newRow("scenario without out") << QStringList{"run", "--scenario", "amp-sanity"} << "--out";
        QTest::newRow("scenario without name") << QStringList{"run", "--scenario"} << "--scenario";
        QTest::newRow("bad override") << QStringList{"run", "--scenario", "amp-sanity", "--out", "/tmp/none",
                                                     "--set", "optim.lrr=1"}
                                      << "optim.lrr";
        QTest::newRow("scenarios takes no argument") << QStringList{"scenarios", "extra"} << "extra";
    }
    void badUsageIsOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
    }

    void multiRunScenarioRecordsEachRunAndPrintsTheTable() {
        QTemporaryDir dir;
        const QString out = dir.filePath("lesson");
        const auto r = runCli({"run", "--scenario", "fp16-no-scaler", "--out", out, "--set", "train.max_steps=832",
                               "--set", "threads=2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // The narrative comes first: what to look at.
        QVERIFY(r.out.startsWith("scenario fp16-no-scaler: "));
        QVERIFY(r.out.contains("What to look at"));
        for (const char* run : {"no-scaler", "dynamic-scaler"}) {
            const QString runDir = out + "/" + run;
            QVERIFY2(QFile::exists(runDir + "/summary.json"), run);
            const auto config = readJson(runDir + "/config.json");
            QCOMPARE(config["train"]["max_steps"].get<int>(), 832);  // the override reached every run
            QCOMPARE(config["name"].get<std::string>(), std::string("fp16-no-scaler-") + run);
        }
        // Ends with the side-by-side table, one row per run, also kept as comparison.txt.
        const QString tail = r.out.mid(r.out.lastIndexOf("side by side:"));
        const QStringList lines = tail.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[1].contains("samples/s") && lines[1].contains("peak memory") && lines[1].contains("val acc"));
        QVERIFY(lines[2].startsWith("no-scaler ") && lines[2].contains("fp16") && lines[2].contains("emulated"));
        QVERIFY(lines[3].startsWith("dynamic-scaler "));
        QFile table(out + "/comparison.txt");
        QVERIFY(table.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(table.readAll()).split('\n', Qt::SkipEmptyParts), lines.mid(1));
        // The lesson shows in what the CLI recorded: the scaler keeps the loss moving.
        const auto off = readJson(out + "/no-scaler/summary.json");
        const auto on = readJson(out + "/dynamic-scaler/summary.json");
        QVERIFY(off["underflow"][0]["mean_flushed_fraction"].get<double>() > 0.9);
        QVERIFY(on["underflow"][0]["mean_flushed_fraction"].get<double>() < 0.01);
        QVERIFY(off["val_loss"].get<double>() > 5 * on["val_loss"].get<double>());
    }

    void singleRunScenarioRecordsIntoOut() {
        QTemporaryDir dir;
        const QString out = dir.filePath("scale");
        const auto r = runCli({"run", "--scenario", "scale-dynamics", "--out", out, "--set", "train.epochs=2",
                               "--set", "threads=2", "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(!r.out.contains("side by side"));
        const auto summary = readJson(out + "/summary.json");
        QVERIFY(summary["scale_backoffs"].get<int>() >= 5);
        QCOMPARE(summary["skipped_steps"].get<int>(), summary["scale_backoffs"].get<int>());
    }
};

QTEST_GUILESS_MAIN(CliScenariosTest)
#include "test_cli_scenarios.moc"
