// ampscope-cli as a user runs it: exit codes, one-line errors naming the field
// or file, and the run directory a finished run leaves.
#include <QtCore/QCryptographicHash>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
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
        QTest::newRow("trace step zero") << QStringList{"run", "x.json", "--out", "d", "--trace-steps", "0"}
                                         << "--trace-steps: \"0\" is not a step number";
        QTest::newRow("trace step a word") << QStringList{"run", "x.json", "--out", "d", "--trace-steps", "5,,6"}
                                           << "--trace-steps: \"\" is not a step number";
        QTest::newRow("trace a scenario") << QStringList{"run", "--scenario", "x", "--out", "d", "--trace-steps", "5"}
                                          << "not a --scenario";
        QTest::newRow("formats with an argument") << QStringList{"formats", "e4m3"} << "'e4m3'";
        QTest::newRow("cast without a format") << QStringList{"cast"} << "missing FORMAT";
        QTest::newRow("cast to an unknown format") << QStringList{"cast", "fp8", "1"} << "unknown format 'fp8'";
        QTest::newRow("cast without a value") << QStringList{"cast", "e4m3"} << "missing VALUE";
        QTest::newRow("cast a word") << QStringList{"cast", "e4m3", "1", "one"} << "'one' is not a number";
        QTest::newRow("cast half a number") << QStringList{"cast", "e4m3", "1.5x"} << "'1.5x' is not a number";
        QTest::newRow("cast beyond double") << QStringList{"cast", "e5m2", "1e400"} << "beyond the range";
        QTest::newRow("cast an unknown option") << QStringList{"cast", "e4m3", "1", "--saturate"}
                                                << "unknown option '--saturate'";
        QTest::newRow("cast nan to e2m1") << QStringList{"cast", "e2m1", "1", "nan"} << "e2m1 has no NaN";
        QTest::newRow("cast 0 to e8m0") << QStringList{"cast", "e8m0", "0"} << "e8m0 has no zero";
        QTest::newRow("cast -2 to e8m0") << QStringList{"cast", "e8m0", "-2"} << "e8m0 has no sign";
        QTest::newRow("cast 7 to e2m1 unsaturated") << QStringList{"cast", "e2m1", "7", "--no-saturate"}
                                                    << "neither Inf nor NaN";
    }
    void badUsageExitsTwoWithOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
    }

    // cast: the value as typed, the value it rounds to (shortest decimal that reads
    // back), the bits; values from the OCP 8-bit Floating Point and MX specifications.
    void castPrintsValueRoundingAndBits_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("e4m3 ties and saturation")
            << QStringList{"cast", "e4m3", "448", "464", "465", "-1e9", "0.1", "-0", "nan", "inf"}
            << "448 448 0x7e\n464 448 0x7e\n465 448 0x7e\n-1e9 -448 0xfe\n0.1 0.1015625 0x1d\n"
               "-0 -0 0x80\nnan nan 0x7f\ninf 448 0x7e\n";
        QTest::newRow("e4m3 without saturation")
            << QStringList{"cast", "e4m3", "464", "465", "--no-saturate"} << "464 448 0x7e\n465 nan 0x7f\n";
        QTest::newRow("e5m2 without saturation")
            << QStringList{"cast", "--no-saturate", "e5m2", "61439", "61440", "-inf", "0x1p-16"}
            << "61439 57344 0x7b\n61440 inf 0x7c\n-inf -inf 0xfc\n0x1p-16 1.52587890625e-05 0x01\n";
        QTest::newRow("e2m1") << QStringList{"cast", "e2m1", "5", "-0.25", "0.3", "100"}
                              << "5 4 0x6\n-0.25 -0 0x8\n0.3 0.5 0x1\n100 6 0x7\n";
        QTest::newRow("fp16") << QStringList{"cast", "fp16", "0.1", "65520", "1e-8"}
                              << "0.1 0.0999755859375 0x2e66\n65520 65504 0x7bff\n1e-8 0 0x0000\n";
        QTest::newRow("fp16 without saturation")
            << QStringList{"cast", "fp16", "65520", "--no-saturate"} << "65520 inf 0x7c00\n";
        QTest::newRow("bf16") << QStringList{"cast", "bf16", "1.00390625", "3"}
                              << "1.00390625 1 0x3f80\n3 3 0x4040\n";
        QTest::newRow("e8m0 floor") << QStringList{"cast", "e8m0", "1", "3", "0.75", "1e-50", "nan"}
                                    << "1 1 0x7f\n3 2 0x80\n0.75 0.5 0x7e\n1e-50 5.877471754111438e-39 0x00\n"
                                       "nan nan 0xff\n";
    }
    void castPrintsValueRoundingAndBits() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, expected);
        QCOMPARE(r.err, QString());
    }

    void formatsListsEveryFormat() {
        const auto r = runCli({"formats"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 6);
        const QStringList names{"fp16", "bf16", "e4m3", "e5m2", "e2m1", "e8m0"};
        const QStringList maxima{"max 65504 ", "max 3.3895313892515355e+38 ", "max 448 ", "max 57344 ",
                                 "max 6 ", "max 1.7014118346046923e+38 "};
        for (int i = 0; i < 6; ++i) {
            QVERIFY2(lines[i].startsWith(names[i] + " "), qPrintable(lines[i]));
            QVERIFY2(lines[i].contains(maxima[i]), qPrintable(lines[i]));
        }
        QVERIFY2(lines[2].contains("8 bits (1-4-3, bias 7)"), qPrintable(lines[2]));
        QVERIFY2(lines[2].contains("min normal 0.015625 (2^-6)"), qPrintable(lines[2]));
        QVERIFY2(lines[2].contains("min subnormal 0.001953125 (2^-9)"), qPrintable(lines[2]));
        QVERIFY2(lines[4].contains("min subnormal 0.5 (2^-1)"), qPrintable(lines[4]));
        QVERIFY2(lines[5].contains("min subnormal none"), qPrintable(lines[5]));
        const auto help = runCli({"--help"});
        QVERIFY(help.out.contains("cast FORMAT VALUE... [--no-saturate]"));
        QVERIFY(help.out.contains("`floor` rule"));
    }

    void badConfigFieldsNameTheField_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<QString>("field");
        QTest::newRow("negative lr") << kTinyRun << QStringList{"optim.lr=-1"} << "optim.lr";
        QTest::newRow("zero batch") << kTinyRun << QStringList{"train.batch_size=0"} << "train.batch_size";
        QTest::newRow("unknown mode") << kTinyRun << QStringList{"precision.mode=fp6"} << "precision.mode";
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

    // precision-map trains to the step, maps it, writes the map's CSV into the run
    // directory and prints it in words; a step the run never reaches is bad input.
    void precisionMapMapsTheStep() {
        QTemporaryDir dir;
        const QString path = writeConfig(dir, "tiny.json", kTinyRun);
        const QString out = dir.filePath("map");
        const auto r = runCli({"precision-map", path, "--step", "3", "--out", out, "--set", "precision.mode=bf16"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("step 3: bf16 against fp32, "), qPrintable(r.out));
        QVERIFY2(r.out.contains("ulps of bf16 (unit roundoff 2^-8)"), qPrintable(r.out));
        QVERIFY2(r.out.contains("ops adding the most error:") && r.out.contains("aten::linear in fc1 (forward)"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("per module, error entering -> leaving:"), qPrintable(r.out));
        std::ifstream summaryFile((out + "/summary.json").toStdString());
        QCOMPARE(nlohmann::json::parse(summaryFile)["steps"].get<int>(), 3);
        QFile csv(out + "/precision_map.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split('\n');
        QVERIFY(lines.front().startsWith("step,index,mode,reference,phase,module,op,"));
        QVERIFY(lines.size() > 10);
        QVERIFY2(lines[1].startsWith("3,0,bf16,fp32,forward,"), qPrintable(lines[1]));
        QVERIFY(QFile::exists(out + "/precision_map_modules.csv"));

        // Six steps of 32 in an epoch of 192 samples: step 50 is never reached.
        const QString late = dir.filePath("late");
        const auto never = runCli({"precision-map", path, "--step", "50", "--out", late, "--set", "train.epochs=1"});
        QCOMPARE(never.exitCode, 2);
        QVERIFY2(never.err.contains("--step: the run ended at step 6, before step 50"), qPrintable(never.err));
        QCOMPARE(never.err.trimmed().count('\n'), 0);
    }

    void tracedStepsWriteChromeTraces() {
        // Step 1 is a probe step, step 3 a clean one, step 99 past the run's end.
        QTemporaryDir dir;
        const QString path = writeConfig(dir, "tiny.json", kTinyRun);
        const QString out = dir.filePath("run");
        const auto r = runCli({"run", path, "--out", out, "--set", "train.max_steps=4", "--trace-steps", "1,3,99"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("step 1 traced: " + out + "/trace-step-1.json"), qPrintable(r.out));
        QVERIFY2(r.out.contains("step 99 not traced: the run ended after step 4"), qPrintable(r.out));
        QVERIFY(!QFile::exists(out + "/trace-step-2.json"));
        QVERIFY(!QFile::exists(out + "/trace-step-99.json"));
        auto load = [&](int step) {
            std::ifstream file((out + QString("/trace-step-%1.json").arg(step)).toStdString());
            return nlohmann::json::parse(file);
        };
        for (int step : {1, 3}) {
            const auto trace = load(step);
            QCOMPARE(trace["otherData"]["step"].get<int>(), step);
            const auto& events = trace["traceEvents"];
            double stepSpan = -1.0;
            int linear = 0, probeWork = 0;
            for (const auto& e : events) {
                QCOMPARE(e["ph"].get<std::string>(), std::string("X"));
                QVERIFY(e["ts"].get<double>() >= 0.0 && e["dur"].get<double>() >= 0.0);
                const auto name = e["name"].get<std::string>();
                if (name == "ampscope::step " + std::to_string(step)) stepSpan = e["dur"].get<double>();
                if (name == "aten::linear" || name == "aten::addmm") ++linear;
                // beginStep/endStep run on every step; the probes' own work only on probe steps.
                if (name.rfind("probes: ", 0) == 0 && name != "probes: begin step" &&
                    name != "probes: end step (readout)")
                    ++probeWork;
            }
            QVERIFY2(stepSpan > 0.0, "the step's own span");
            QVERIFY2(linear >= 2, "the MLP's two linear layers");  // forward of fc1 and the output layer
            // The probe step shows its probes' work; the clean step none.
            if (step == 1)
                QVERIFY2(probeWork > 0, "probe spans on the probe step");
            else
                QCOMPARE(probeWork, 0);
        }
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

    // A user's TorchScript model with a NaN injected into a named submodule: the summary
    // names the module, the step and the phase; config.json names the file by SHA-256;
    // the run holds the module tree and the first-NaN record with the op.
    void ownModelNaNIsLocatedByName() {
        const QString fixtures = qEnvironmentVariable("AMPSCOPE_SCRIPT_FIXTURES");
        if (!QFile::exists(fixtures + "/residual_mlp.pt"))
            QSKIP("no TorchScript fixtures (python3-torch writes them)");
        QTemporaryDir dir;
        // A relative model.path: found next to the config.
        QVERIFY(QFile::copy(fixtures + "/residual_mlp.pt", dir.filePath("mynet.pt")));
        const QString path = writeConfig(dir, "own.json", R"({"threads": 1,
            "model": {"name": "torchscript", "path": "mynet.pt"},
            "data": {"subset": 512}, "train": {"max_steps": 12, "batch_size": 32},
            "precision": {"mode": "fp16"},
            "faults": [{"step": 7, "kind": "nan_activation", "layer": "blocks.1.fc1"}]})");
        const QString out = dir.filePath("run");
        const auto r = runCli({"run", path, "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString summary = r.out.section("first NaN/Inf   ", 1).section('\n', 0, 0);
        QVERIFY2(summary.startsWith("step 7: 1 NaN of 2048 in the activation of blocks.1.fc1 (forward)"),
                 qPrintable(r.out));
        QVERIFY2(summary.contains("first op") && summary.contains("in blocks.1.fc1 (forward)"), qPrintable(summary));

        std::ifstream configFile((out + "/config.json").toStdString());
        const auto config = nlohmann::json::parse(configFile);
        QCOMPARE(QString::fromStdString(config["model"]["path"].get<std::string>()), dir.filePath("mynet.pt"));
        QCOMPARE(config["model"]["file_bytes"].get<int64_t>(), QFileInfo(dir.filePath("mynet.pt")).size());
        QFile model(dir.filePath("mynet.pt"));
        QVERIFY(model.open(QIODevice::ReadOnly));
        const QString sha = QCryptographicHash::hash(model.readAll(), QCryptographicHash::Sha256).toHex();
        QCOMPARE(QString::fromStdString(config["model"]["sha256"].get<std::string>()), sha);

        bool tree = false, located = false;
        std::ifstream events((out + "/events.jsonl").toStdString());
        for (std::string line; std::getline(events, line);) {
            const auto record = nlohmann::json::parse(line);
            if (record["type"] == "model_modules") {
                tree = true;
                QCOMPARE(record["sha256"].get<std::string>(), sha.toStdString());
                bool probed = false;
                for (const auto& m : record["modules"])
                    if (m["name"] == "blocks.1.fc1") probed = m["probed"].get<bool>();
                QVERIFY(probed);
            }
            if (record["type"] == "nonfinite") {
                located = true;
                QCOMPARE(record["layer"].get<std::string>(), std::string("blocks.1.fc1"));
                QCOMPARE(record["op_module"].get<std::string>(), std::string("blocks.1.fc1"));
            }
        }
        QVERIFY(tree);
        QVERIFY(located);
    }

    void versionPrintsLibraries() {
        const auto r = runCli({"--version"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("LibTorch"));
    }
};

QTEST_GUILESS_MAIN(CliTest)
#include "test_cli.moc"
