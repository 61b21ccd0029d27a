// `ampscope-cli sensitivity` and `ampscope-cli prescribe` as a user runs them, on a tiny
// spirals MLP: the files each writes, their numbers recomputed from what they rest on
// (the passes' records, the runs' own summary.json files), the folder that opens as one
// set, and every bad input as one line, exit 2, with nothing trained.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "FileSupport.h"
#include "TestSupport.h"
#include "probes/SensitivityRecord.h"
#include "run/RunSetFolder.h"

using namespace ampscope;

namespace {

using test::runCli;

// Plain string literals: Qt 6.4's moc skips a class after a raw string literal.
const char* kTinyRun =
    "{\"threads\": 1, \"seed\": 3,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 512, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [32, 32]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 2, \"batch_size\": 32}}";

QString writeConfig(const QTemporaryDir& dir) {
    const QString path = dir.filePath("tiny.json");
    test::writeTextFile(path, kTinyRun);
    return path;
}

// Appends one row to $AMPSCOPE_BAD_INPUT_TABLE (when set), the temporary folder as $TMP:
// docs/bad-input.md's section on these two commands (tests/bad-input-table.py).
void note(const QString& input, int exitCode, QString line, const QString& tmp) {
    const char* file = std::getenv("AMPSCOPE_BAD_INPUT_TABLE");
    if (!file || !*file) return;
    line.replace(tmp, "$TMP");
    QFile out(QString::fromLocal8Bit(file));
    if (!out.open(QIODevice::Append | QIODevice::Text)) return;
    out.write(("sensitivity and prescribe\t" + input + '\t' + QString::number(exitCode) + '\t' + line.trimmed() +
               '\n').toUtf8());
}

}  // namespace

class CliPrescribeTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Eight steps measured every four: two passes, each a line of sensitivity.jsonl, and
    // sensitivity.json their mean, layer by layer.
    void sensitivityWritesEachPassAndTheirMean() {
        QTemporaryDir dir;
        const QString out = dir.filePath("sens");
        const auto r = runCli({"sensitivity", writeConfig(dir), "--formats", "mxfp4,fp8", "--steps", "8", "--every",
                               "4", "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("mxfp4, most sensitive first:"));
        QVERIFY(r.out.contains("fp8, most sensitive first:"));
        std::vector<SensitivityRecord> passes;
        std::ifstream lines((out + "/sensitivity.jsonl").toStdString());
        for (std::string line; std::getline(lines, line);)
            passes.push_back(sensitivityRecordFromJson(nlohmann::json::parse(line)));
        QCOMPARE(passes.size(), size_t(2));
        QCOMPARE(passes[0].step, int64_t(4));
        QCOMPARE(passes[1].step, int64_t(8));
        const auto mean = sensitivityRecordFromJson(test::readJsonFile(out + "/sensitivity.json"));
        QCOMPARE(mean.formats, (std::vector<std::string>{"mxfp4", "fp8"}));
        QCOMPARE(mean.layers.size(), size_t(3));  // fc1, fc2, out
        for (size_t l = 0; l < 3; ++l)
            for (const std::string format : {"mxfp4", "fp8"}) {
                const double expected =
                    (passes[0].layers[l].in(format)->score + passes[1].layers[l].in(format)->score) / 2.0;
                QCOMPARE_BITS(mean.layers[l].in(format)->score, expected);
                QVERIFY(mean.layers[l].in(format)->score > 0.0);
            }
        const QString table = test::readTextFile(out + "/sensitivity.txt").trimmed();
        QVERIFY(table.startsWith("sensitivity at step 8, mean of 2 passes"));
        QVERIFY(r.out.contains(table));
        // The same folder again: refused, nothing overwritten.
        const auto again = runCli({"sensitivity", writeConfig(dir), "--steps", "2", "--out", out});
        note("sensitivity: --out holding a result", again.exitCode, again.err, dir.path());
        QCOMPARE(again.exitCode, 2);
        QCOMPARE(again.err.trimmed(),
                 QString("ampscope-cli: --out: %1 already holds a sensitivity result (sensitivity.jsonl)").arg(out));
    }

    void badSensitivityInputIsOneLine_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("line");
        QTest::newRow("unknown format") << QStringList{"--formats", "fp8,fp4"}
                                        << "--formats: unknown format 'fp4' (valid: fp8, mxfp8, mxfp4, nvfp4)";
        QTest::newRow("no format") << QStringList{"--formats", ","} << "--formats: no format";
        QTest::newRow("steps") << QStringList{"--steps", "0"}
                               << "--steps: \"0\" is not a step number (steps count from 1; e.g. --steps 40)";
    }
    void badSensitivityInputIsOneLine() {
        QFETCH(QStringList, options);
        QFETCH(QString, line);
        QTemporaryDir dir;
        const QString out = dir.filePath("sens");
        const auto r = runCli(QStringList{"sensitivity", writeConfig(dir), "--out", out} + options);
        note("sensitivity: " + QString(QTest::currentDataTag()), r.exitCode, r.err, dir.path());
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed(), "ampscope-cli: " + line);
        QVERIFY(!QFileInfo::exists(out));
    }

    // fp8 on this MLP is within seed noise of fp32: the prescription keeps nothing and
    // trains no third arm. Each arm's mean is its runs' own summary.json values', and its
    // label agrees with its p-value.
    void prescribeVerifiesByTraining() {
        QTemporaryDir dir;
        const QString out = dir.filePath("rx");
        const auto r = runCli({"prescribe", writeConfig(dir), "--format", "fp8", "--seeds", "2", "--steps", "24",
                               "--out", out, "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto rx = test::readJsonFile(out + "/prescription.json");
        QCOMPARE(rx["format"].get<std::string>(), std::string("fp8"));
        QCOMPARE(rx["arms"].size(), size_t(3));
        QStringList runs;
        for (const auto& arm : rx["arms"]) {
            if (!arm["trained"].get<bool>()) continue;
            std::vector<double> losses;
            for (const auto& run : arm["runs"]) {
                const QString folder = out + "/" + QString::fromStdString(run.get<std::string>());
                runs << QDir(folder).absolutePath();
                const auto config = test::readJsonFile(folder + "/config.json");
                QCOMPARE(config["precision"]["mode"], arm["mode"]);
                QCOMPARE(config["train"]["max_steps"].get<int>(), 24);
                const auto summary = test::readJsonFile(folder + "/summary.json");
                QCOMPARE(summary["steps"].get<int>(), 24);
                losses.push_back(summary["val_loss"].get<double>());
            }
            QCOMPARE(losses.size(), size_t(2));
            const double mean = (losses[0] + losses[1]) / 2.0;
            QVERIFY(std::fabs(arm["val_loss"]["mean"].get<double>() - mean) <= 1e-12 * std::fabs(mean));
            if (arm.contains("label")) continue;
            if (arm["val_loss"].contains("label")) {
                const bool outside = arm["val_loss"]["p"].get<double>() < 0.05;
                QCOMPARE(arm["val_loss"]["label"].get<std::string>(), std::string(outside ? "outside" : "inside"));
            }
        }
        const auto& format = rx["arms"][1];
        const bool inside = format["val_loss"]["label"] == "inside" && format["val_accuracy"]["label"] == "inside";
        QCOMPARE(rx["arms"][2]["trained"].get<bool>(), !inside && !rx["kept"].empty());
        if (inside) QVERIFY(rx["kept"].empty());
        // One set: the folder opens as every run it trained, and nothing else.
        QStringList set;
        for (const auto& path : runSetDirectories(out.toStdString()))
            set << QDir(QString::fromStdString(path)).absolutePath();
        set.sort();
        runs.sort();
        QCOMPARE(set, runs);
        QVERIFY(test::readTextFile(out + "/prescription.txt").contains("torchao") || rx["kept"].empty());
        QVERIFY(QFileInfo::exists(out + "/sensitivity.txt"));
        QVERIFY(QFileInfo::exists(out + "/reference-config.json"));
    }

    void badPrescribeInputIsOneLine_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("line");
        QTest::newRow("no format") << QStringList{} << "prescribe: missing --format FORMAT (fp8, mxfp8, mxfp4 or nvfp4)";
        QTest::newRow("fp32") << QStringList{"--format", "fp32"}
                              << "--format: one low-precision format (fp8, mxfp8, mxfp4 or nvfp4; got \"fp32\")";
        QTest::newRow("unknown format")
            << QStringList{"--format", "fp4"} << "--format: unknown format 'fp4' (valid: fp8, mxfp8, mxfp4, nvfp4)";
        QTest::newRow("budget 0") << QStringList{"--format", "mxfp4", "--budget", "0"}
                                  << "--budget: \"0\" is not a share of FLOPs in (0, 1] (e.g. --budget 0.9: at least "
                                     "90% stay in the format)";
        QTest::newRow("budget 1.5") << QStringList{"--format", "mxfp4", "--budget", "1.5"}
                                    << "--budget: \"1.5\" is not a share of FLOPs in (0, 1] (e.g. --budget 0.9: at "
                                       "least 90% stay in the format)";
        QTest::newRow("one seed") << QStringList{"--format", "mxfp4", "--seeds", "1"}
                                  << "--seeds: a seed band needs at least 2 seeds (got 1)";
    }
    void badPrescribeInputIsOneLine() {
        QFETCH(QStringList, options);
        QFETCH(QString, line);
        QTemporaryDir dir;
        const QString out = dir.filePath("rx");
        const auto r = runCli(QStringList{"prescribe", writeConfig(dir), "--out", out} + options);
        note("prescribe: " + QString(QTest::currentDataTag()), r.exitCode, r.err, dir.path());
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed(), "ampscope-cli: " + line);
        QVERIFY(!QFileInfo::exists(out));
    }

    void prescribeIntoAFolderInUseIsRefused() {
        QTemporaryDir dir;
        const QString out = dir.filePath("rx");
        QVERIFY(QDir().mkpath(out));
        std::ofstream((out + "/notes.txt").toStdString()) << "mine";
        const auto r = runCli({"prescribe", writeConfig(dir), "--format", "mxfp4", "--out", out});
        note("prescribe: --out not empty", r.exitCode, r.err, dir.path());
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed(), QString("ampscope-cli: %1: not empty; a set of runs goes in a new or empty folder "
                                          "(choose another --out)")
                                      .arg(out));
        QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{"notes.txt"});
    }
};

QTEST_GUILESS_MAIN(CliPrescribeTest)
#include "test_cli_prescribe.moc"
