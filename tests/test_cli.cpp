// ampscope-cli as a user runs it: exit codes, one-line errors naming the field
// or file, and the run directory a finished run leaves.
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

#include "TestSupport.h"

namespace {

using ampscope::test::CliResult;
using ampscope::test::runCli;

QString writeConfig(const QTemporaryDir& dir, const QString& name, const std::string& text) {
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString()) << text;
    return path;
}

// Plain string literals: Qt 6.4's moc skips a class after a raw string literal.
const char* kTinyRun =
    "{\"threads\": 1,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 256, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [16]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 2, \"batch_size\": 32}}";

}  // namespace

class CliTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void badUsageExitsTwoWithOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no command") << QStringList{} << "missing command";
        QTest::newRow("unknown command") << QStringList{"train"} << "'train'";
        QTest::newRow("unknown flag") << QStringList{"run", "x.json", "--out", "d", "--fast"} << "--fast";
        QTest::newRow("missing --out") << QStringList{"run", "x.json"} << "--out";
        QTest::newRow("missing config file") << QStringList{"run", "/no/such.json", "--out", "/tmp/x"}
                                             << "/no/such.json";
    }
    void badUsageExitsTwoWithOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
    }

    void badConfigFieldsNameTheField_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<QString>("field");
        QTest::newRow("negative lr") << kTinyRun << QStringList{"optim.lr=-1"} << "optim.lr";
        QTest::newRow("zero batch") << kTinyRun << QStringList{"train.batch_size=0"} << "train.batch_size";
        QTest::newRow("unknown mode") << kTinyRun << QStringList{"precision.mode=fp8"} << "precision.mode";
        QTest::newRow("growth factor 1") << kTinyRun << QStringList{"precision.scaler.growth_factor=1"}
                                         << "precision.scaler.growth_factor";
        QTest::newRow("missing key") << kTinyRun << QStringList{"optim.lrr=1"} << "optim.lrr";
        QTest::newRow("wrong type") << kTinyRun << QStringList{"train.epochs=\"two\""} << "train.epochs";
        QTest::newRow("unknown key in file") << "{\"optim\": {\"learning_rate\": 0.1}}" << QStringList{}
                                             << "optim.learning_rate";
        QTest::newRow("not json") << "{ this is not json" << QStringList{} << "not valid JSON";
    }
    void badConfigFieldsNameTheField() {
        QFETCH(QString, config);
        QFETCH(QStringList, sets);
        QFETCH(QString, field);
        QTemporaryDir dir;
        const QString path = writeConfig(dir, "config.json", config.toStdString());
        QStringList args{"run", path, "--out", dir.filePath("run")};
        for (const auto& s : sets) args << "--set" << s;
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(field), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(!QFile::exists(dir.filePath("run/events.jsonl")));
    }

    void aFinishedRunLeavesItsDirectory() {
        QTemporaryDir dir;
        const QString path = writeConfig(dir, "tiny.json", kTinyRun);
        const QString out = dir.filePath("run");
        const auto r = runCli({"run", path, "--out", out, "--set", "precision.mode=bf16"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // The first line says the mode and whether it is emulated.
        const QString firstLine = r.out.section('\n', 0, 0);
        QVERIFY2(firstLine.contains("bf16") && firstLine.contains("real bf16 autocast"), qPrintable(firstLine));
        QVERIFY(r.out.contains(out));
        std::ifstream summaryFile((out + "/summary.json").toStdString());
        const auto summary = nlohmann::json::parse(summaryFile);
        for (const char* key : {"schema_version", "device", "threads", "precision", "steps", "epochs",
                                "wall_seconds", "samples_per_second", "peak_memory_bytes",
                                "final_train_loss", "val_loss", "val_accuracy"})
            QVERIFY2(summary.contains(key), key);
        QCOMPARE(summary["precision"]["mode"].get<std::string>(), std::string("bf16"));
        QCOMPARE(summary["precision"]["emulated"].get<bool>(), false);
        QCOMPARE(summary["steps"].get<int>(), 2 * 6);
        QCOMPARE(summary["threads"].get<int>(), 1);
        std::ifstream configFile((out + "/config.json").toStdString());
        const auto config = nlohmann::json::parse(configFile);
        QCOMPARE(config["precision"]["mode"].get<std::string>(), std::string("bf16"));
        QCOMPARE(config["optim"]["name"].get<std::string>(), std::string("adam"));  // resolved default

        // The same --out again is refused: nothing recorded is overwritten.
        const auto again = runCli({"run", path, "--out", out});
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains("already holds a run"), qPrintable(again.err));
    }

    void scaleHistoryWithInjectedInfsFollowsTheRule() {
        QTemporaryDir dir;
        const QString path = writeConfig(dir, "tiny.json", kTinyRun);
        // 12 steps; growth every 3 clean steps; infs injected at steps 3, 4 and 9.
        const auto r = runCli({"run", path, "--out", dir.filePath("run"), "--set", "precision.mode=fp16",
                               "--set", "precision.scaler.kind=dynamic", "--set",
                               "precision.scaler.init_scale=1024", "--set",
                               "precision.scaler.growth_interval=3", "--set",
                               "faults=[{\"step\":3,\"kind\":\"inf_grad\",\"layer\":\"fc1\"},"
                               "{\"step\":4,\"kind\":\"inf_grad\",\"layer\":\"fc1\"},"
                               "{\"step\":9,\"kind\":\"nan_grad\",\"layer\":\"out\"}]"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QStringList history;
        const QRegularExpression line("step (\\d+): loss scale (\\S+) -> (\\S+) \\((backoff|growth)");
        for (const auto& text : r.out.split('\n')) {
            const auto match = line.match(text);
            if (match.hasMatch())
                history << QString("%1:%2->%3:%4").arg(match.captured(1), match.captured(2), match.captured(3),
                                                       match.captured(4));
        }
        // By hand: 1024 (t1, t2) | inf -> 512 | inf -> 256 | t1 t2 grow -> 512 | t1 | inf -> 256 |
        // t1 t2 grow -> 512.
        const QStringList expected{"3:1024->512:backoff", "4:512->256:backoff", "7:256->512:growth",
                                   "9:512->256:backoff", "12:256->512:growth"};
        QCOMPARE(history, expected);
        QVERIFY(r.out.contains("first non-finite gradient in fc1"));
        QVERIFY(r.out.contains("first non-finite gradient in out"));
        QVERIFY(r.out.contains("final 512, 3 skipped steps, 3 backoffs, 2 growths"));
    }

    void versionPrintsLibraries() {
        const auto r = runCli({"--version"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("LibTorch"));
    }
};

QTEST_GUILESS_MAIN(CliTest)
#include "test_cli.moc"
