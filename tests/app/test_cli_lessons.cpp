// A lesson a teacher writes by hand, as docs/guide/lessons.md shows it: a folder with
// scenario.json, three run configs that train on the lesson's own safetensors file, and a
// narrative with view links. `ampscope-cli check-lesson` finds it valid and
// `ampscope-cli run --lesson` runs it (a few steps each); each bad lesson gets exactly the
// lines written below (the FILE:LINE of each is where this suite wrote the bad value) and
// exit 2, fast, and nothing runs: paths out of the folder, a symlink out, 10^5 runs, a 50 MB
// narrative (sparse), a javascript: link, a view of an unknown run, a bad config field, and
// a TorchScript model without --trust-model.
//
// With AMPSCOPE_BAD_INPUT_TABLE=FILE every bad lesson appends its row to FILE
// ("lesson<TAB>input<TAB>exit<TAB>line", the temporary folder as $TMP), for
// tests/bad-input-table.py, which renders docs/bad-input.md.
#include <unistd.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "LessonSupport.h"
#include "TestSupport.h"

namespace {

using ampscope::test::kNarrative;
using ampscope::test::runCli;
using ampscope::test::runConfig;
using ampscope::test::scenarioJson;
using ampscope::test::tinySafetensors;
using ampscope::test::writeBytes;
using ampscope::test::writeLesson;

QStringList lines(const QString& text) { return text.split('\n', Qt::SkipEmptyParts); }

// Appends one row to $AMPSCOPE_BAD_INPUT_TABLE (when set), the temporary folder as $TMP.
void note(const QString& input, int exitCode, QString line, const QString& tmp) {
    const char* file = std::getenv("AMPSCOPE_BAD_INPUT_TABLE");
    if (!file || !*file) return;
    line.replace(tmp, "$TMP");
    line = line.trimmed();
    line.replace('\n', " | ");
    QFile out(QString::fromLocal8Bit(file));
    if (!out.open(QIODevice::Append | QIODevice::Text)) return;
    out.write(("lesson\t" + input + '\t' + QString::number(exitCode) + '\t' + line + '\n').toUtf8());
}

}  // namespace

class CliLessonsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aHandWrittenLessonIsValid() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const auto r = runCli({"check-lesson", lesson});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.err, QString());
        QCOMPARE(r.out, lesson + ": lesson tiny-lesson is valid (3 runs, 2 views)\n");
    }

    void aLessonRunsFromTheCommandLine() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QString out = tmp.filePath("out");
        const auto r = runCli({"run", "--lesson", lesson, "--out", out, "--set", "train.max_steps=3", "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString data = QFileInfo(lesson + "/data/tiny.safetensors").canonicalFilePath();
        for (const char* run : {"fp32", "bf16", "fp16"}) {
            const QString directory = out + "/" + run;
            std::ifstream summaryFile((directory + "/summary.json").toStdString());
            const auto summary = nlohmann::json::parse(summaryFile);
            QCOMPARE(QString::fromStdString(summary.value("status", "")), QString("finished"));
            QCOMPARE(summary.value("steps", 0), 3);
            std::ifstream configFile((directory + "/config.json").toStdString());
            const auto config = nlohmann::json::parse(configFile);
            // The relative path resolved against the lesson folder, not the working directory.
            QCOMPARE(QString::fromStdString(config["data"]["path"].get<std::string>()), data);
            QCOMPARE(QString::fromStdString(config["precision"]["mode"].get<std::string>()), QString(run));
        }
        QVERIFY(QFileInfo::exists(out + "/comparison.txt"));
    }

    void badLessonsAreNamedOnTheirLines_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("expected");  // after the lesson's path; $L: the lesson folder
        QTest::newRow("a data.path with ..")
            << "dotdot"
            << QStringList{"fp32.json:3: data.path \"../outside.safetensors\" climbs out of the lesson folder "
                           "(\"..\"): a lesson names files inside it"};
        QTest::newRow("an absolute data.path")
            << "absolute"
            << QStringList{"bf16.json:3: data.path \"/etc/passwd\" is an absolute path: a lesson names its files "
                           "relative to its folder"};
        QTest::newRow("a data.path that is a symlink out of the folder")
            << "symlink"
            << QStringList{"fp16.json:3: data.path \"data/link.safetensors\" is a link to a file outside the lesson folder"};
        QTest::newRow("a narrative.md that is a symlink out of the folder")
            << "narrative symlink" << QStringList{"narrative.md: a link to a file outside the lesson folder"};
        QTest::newRow("100000 runs") << "runs"
                                     << QStringList{"scenario.json:4: runs has 100000 entries; a lesson holds at most 64"};
        QTest::newRow("a 50 MB narrative.md")
            << "big narrative" << QStringList{"narrative.md: 52428800 bytes; a lesson's narrative.md may be at most 1 MiB"};
        QTest::newRow("a javascript: link")
            << "javascript"
            << QStringList{"narrative.md:6: the link \"javascript:alert(1)\" is not allowed: a narrative links to its "
                           "views (view:ID) and to https: pages only"};
        QTest::newRow("a view of a run the lesson lacks")
            << "unknown run"
            << QStringList{"scenario.json:8: views[1].run \"fp17\" is not a run of this lesson (runs: fp32, bf16, fp16)"};
        QTest::newRow("a bad config field") << "lr" << QStringList{"fp32.json:7: optim.lr: must be in (0, 10] (got -1)"};
        QTest::newRow("three problems at once")
            << "three"
            << QStringList{"fp32.json:7: optim.lr: must be in (0, 10] (got -1)",
                           "scenario.json:8: views[1].run \"fp17\" is not a run of this lesson (runs: fp32, bf16, fp16)",
                           "narrative.md:6: the link \"javascript:alert(1)\" is not allowed: a narrative links to its "
                           "views (view:ID) and to https: pages only"};
    }
    void badLessonsAreNamedOnTheirLines() {
        QFETCH(QString, kind);
        QFETCH(QStringList, expected);
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QByteArray javascript = QByteArray(kNarrative) + "[click](javascript:alert(1))\n";
        if (kind == "dotdot") {
            writeBytes(tmp.filePath("outside.safetensors"), tinySafetensors());
            writeBytes(lesson + "/fp32.json", runConfig("fp32", "../outside.safetensors"));
        } else if (kind == "absolute") {
            writeBytes(lesson + "/bf16.json", runConfig("bf16", "/etc/passwd"));
        } else if (kind == "symlink") {
            writeBytes(tmp.filePath("outside.safetensors"), tinySafetensors());
            QVERIFY(QFile::link(tmp.filePath("outside.safetensors"), lesson + "/data/link.safetensors"));
            writeBytes(lesson + "/fp16.json", runConfig("fp16", "data/link.safetensors"));
        } else if (kind == "narrative symlink") {
            writeBytes(tmp.filePath("elsewhere.md"), kNarrative);
            QVERIFY(QFile::remove(lesson + "/narrative.md"));
            QVERIFY(QFile::link(tmp.filePath("elsewhere.md"), lesson + "/narrative.md"));
        } else if (kind == "runs") {
            QByteArray runs;
            for (int i = 1; i <= 100000; ++i) runs += (i > 1 ? ", \"r" : "\"r") + QByteArray::number(i) + "\"";
            QByteArray meta = scenarioJson();
            meta.replace("[\"fp32\", \"bf16\", \"fp16\"]", "[" + runs + "]");
            writeBytes(lesson + "/scenario.json", meta);
        } else if (kind == "big narrative") {
            QFile narrative(lesson + "/narrative.md");
            QVERIFY(narrative.resize(50LL * 1024 * 1024));  // sparse: nothing written
        } else if (kind == "javascript") {
            writeBytes(lesson + "/narrative.md", javascript);
        } else if (kind == "unknown run") {
            writeBytes(lesson + "/scenario.json", scenarioJson("fp17"));
        } else if (kind == "lr") {
            writeBytes(lesson + "/fp32.json", runConfig("fp32", "data/tiny.safetensors", "{\"name\": \"mlp\", \"hidden\": [8]}", "-1"));
        } else if (kind == "three") {
            writeBytes(lesson + "/fp32.json", runConfig("fp32", "data/tiny.safetensors", "{\"name\": \"mlp\", \"hidden\": [8]}", "-1"));
            writeBytes(lesson + "/scenario.json", scenarioJson("fp17"));
            writeBytes(lesson + "/narrative.md", javascript);
        }

        QElapsedTimer clock;
        clock.start();
        const auto check = runCli({"check-lesson", lesson}, 30000);
        QCOMPARE(check.exitCode, 2);
        QCOMPARE(check.out, QString());
        QCOMPARE(lines(check.err), expected);
        note("check-lesson: " + QString(QTest::currentDataTag()), check.exitCode, check.err, tmp.path());

        // run --lesson: one line, the first problem after the folder, nothing run.
        const QString out = tmp.filePath("out");
        const auto run = runCli({"run", "--lesson", lesson, "--out", out}, 30000);
        QCOMPARE(run.exitCode, 2);
        QString line = "ampscope-cli: " + lesson + "/" + expected.front();
        if (expected.size() > 1)
            line += QString(" (and %1 more: ampscope-cli check-lesson %2 lists them)").arg(expected.size() - 1).arg(lesson);
        QCOMPARE(run.err, line + "\n");
        QVERIFY(!QFileInfo::exists(out));
        note("run --lesson: " + QString(QTest::currentDataTag()), run.exitCode, run.err, tmp.path());
        // Refused before reading: the 50 MB narrative and the 10^5 runs cost no time.
        QVERIFY2(clock.elapsed() < 20000, qPrintable(QString::number(clock.elapsed())));
    }

    // A TorchScript model runs code: check-lesson never loads it (the lesson is valid),
    // run --lesson names it and its SHA-256 and stops unless --trust-model is given.
    void aModelIsLoadedOnlyWhenTrusted() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QByteArray model = "not a TorchScript archive: check-lesson must never open it";
        writeBytes(lesson + "/models/net.pt", model);
        writeBytes(lesson + "/fp16.json", runConfig("fp16", "data/tiny.safetensors", "{\"name\": \"torchscript\", \"path\": \"models/net.pt\"}"));
        const auto check = runCli({"check-lesson", lesson});
        QVERIFY2(check.exitCode == 0, qPrintable(check.err));

        const QString out = tmp.filePath("out");
        const auto untrusted = runCli({"run", "--lesson", lesson, "--out", out});
        QCOMPARE(untrusted.exitCode, 2);
        const QString sha = QCryptographicHash::hash(model, QCryptographicHash::Sha256).toHex();
        const QString path = QFileInfo(lesson + "/models/net.pt").canonicalFilePath();
        QCOMPARE(untrusted.err, "ampscope-cli: lesson tiny-lesson, run fp16: model.path " + path +
                                    " is a TorchScript model (SHA-256 " + sha +
                                    "), which runs code as you: pass --trust-model to load it\n");
        QVERIFY(!QFileInfo::exists(out));
        note("run --lesson: a TorchScript model without --trust-model", untrusted.exitCode, untrusted.err, tmp.path());

        // Trusted, it is loaded: the first two runs train, the third is refused by the
        // model loader (these bytes are no model), not by the trust rule.
        const auto trusted = runCli({"run", "--lesson", lesson, "--out", out, "--trust-model", "--set", "train.max_steps=2", "--quiet"});
        QCOMPARE(trusted.exitCode, 2);
        QVERIFY2(!trusted.err.contains("--trust-model") && trusted.err.contains("net.pt"), qPrintable(trusted.err));
        QVERIFY(QFileInfo::exists(out + "/bf16/summary.json"));
    }

    void lessonArgumentsAreChecked_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("line");
        QTest::newRow("check-lesson without a folder")
            << QStringList{"check-lesson"} << "check-lesson: give one lesson folder or file (check-lesson PATH)";
        QTest::newRow("a lesson and a scenario")
            << QStringList{"run", "--lesson", "x", "--scenario", "amp-sanity", "--out", "o"}
            << "run: give one of CONFIG.json, --scenario NAME and --lesson PATH";
        QTest::newRow("--trust-model without a lesson")
            << QStringList{"run", "--scenario", "amp-sanity", "--trust-model", "--out", "o"}
            << "run: --trust-model trusts a --lesson's TorchScript model (your own config's is trusted)";
        QTest::newRow("a folder that is not there")
            << QStringList{"check-lesson", "/nonexistent/lesson"} << "/nonexistent/lesson: not a lesson folder (no such directory)";
    }
    void lessonArgumentsAreChecked() {
        QFETCH(QStringList, args);
        QFETCH(QString, line);
        const auto r = runCli(args, 30000);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, "ampscope-cli: " + line + "\n");
    }
};

QTEST_GUILESS_MAIN(CliLessonsTest)
#include "test_cli_lessons.moc"
