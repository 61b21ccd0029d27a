// A lesson as one file, from the command line: `ampscope-cli pack-lesson FOLDER --out
// FILE.ampscope-lesson` writes it, and `check-lesson` and `run --lesson` take the file
// wherever they take the folder, with the same answers (docs/guide/lessons.md). A problem
// inside a lesson file is named after the file, never after the temporary folder it was
// unpacked into; bad arguments, a file that is no lesson and every hostile lesson file
// (tests/tools/write_lesson_zip.py writes them with Python's zipfile) are one line and
// exit 2. (The zip format itself, against zipfile: core/scenarios/test_lesson_archive.)
//
// With AMPSCOPE_BAD_INPUT_TABLE=FILE each hostile file appends its row to FILE
// ("lesson file<TAB>input<TAB>exit<TAB>line", the temporary folder as $TMP), for
// tests/bad-input-table.py, which renders docs/bad-input.md.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "LessonSupport.h"
#include "TestSupport.h"

namespace {

using ampscope::test::runCli;
using ampscope::test::runConfig;
using ampscope::test::writeBytes;
using ampscope::test::writeLesson;

// Appends one row to $AMPSCOPE_BAD_INPUT_TABLE (when set), the temporary folder as $TMP.
void note(const QString& input, int exitCode, QString line, const QString& tmp) {
    const char* file = std::getenv("AMPSCOPE_BAD_INPUT_TABLE");
    if (!file || !*file) return;
    line.replace(tmp, "$TMP");
    QFile out(QString::fromLocal8Bit(file));
    if (!out.open(QIODevice::Append | QIODevice::Text)) return;
    out.write(("lesson file\t" + input + '\t' + QString::number(exitCode) + '\t' + line.trimmed() + '\n').toUtf8());
}

}  // namespace

class CliLessonFilesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aPackedLessonIsCheckedAndRunAsItsFolder() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QString file = tmp.filePath("tiny.ampscope-lesson");
        const auto pack = runCli({"pack-lesson", lesson, "--out", file});
        QVERIFY2(pack.exitCode == 0, qPrintable(pack.err));
        QCOMPARE(pack.out, lesson + ": lesson tiny-lesson packed into " + file + "\n");

        const auto check = runCli({"check-lesson", file});
        QVERIFY2(check.exitCode == 0, qPrintable(check.err));
        QCOMPARE(check.out, file + ": lesson tiny-lesson is valid (3 runs, 2 views)\n");

        // Moved away from its folder, the file still holds everything its runs read.
        QVERIFY(QDir(lesson).removeRecursively());
        const QString out = tmp.filePath("out");
        const auto run = runCli({"run", "--lesson", file, "--out", out, "--set", "train.max_steps=2", "--quiet"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        for (const char* name : {"fp32", "bf16", "fp16"}) {
            std::ifstream summaryFile((out + "/" + name + "/summary.json").toStdString());
            const auto summary = nlohmann::json::parse(summaryFile);
            QCOMPARE(QString::fromStdString(summary.value("status", "")), QString("finished"));
            QCOMPARE(summary.value("steps", 0), 2);
        }
        QVERIFY(QFileInfo::exists(out + "/comparison.txt"));
    }

    // A problem inside the file: check-lesson prints FILE:LINE as for a folder, run --lesson
    // names the lesson file before it (not where it was unpacked).
    void aProblemInsideALessonFileNamesTheFile() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QString file = tmp.filePath("bad.ampscope-lesson");
        QVERIFY(runCli({"pack-lesson", lesson, "--out", file}).exitCode == 0);
        // The packed lesson is valid; a bad field is put in afterwards, as someone else's
        // tool might: the zip rewritten by Python with optim.lr = -1 on line 7 of fp32.json.
        QProcess python;
        python.start(QString::fromStdString(ampscope::test::envOr("AMPSCOPE_PYTHON", "/usr/bin/python3")),
                     {"-c",
                      "import sys, zipfile\n"
                      "src, out = sys.argv[1], sys.argv[2]\n"
                      "with zipfile.ZipFile(src) as a, zipfile.ZipFile(out, 'w') as b:\n"
                      "    for i in a.infolist():\n"
                      "        data = a.read(i)\n"
                      "        if i.filename.endswith('/fp32.json'): data = data.replace(b'\"lr\": 0.01', b'\"lr\": -1')\n"
                      "        b.writestr(i.filename, data)\n",
                      file, file + ".edited"});
        QVERIFY(python.waitForFinished(60000) && python.exitCode() == 0);
        const QString edited = tmp.filePath("edited.ampscope-lesson");
        QVERIFY(QFile::rename(file + ".edited", edited));

        const auto check = runCli({"check-lesson", edited});
        QCOMPARE(check.exitCode, 2);
        QCOMPARE(check.err, QString("fp32.json:7: optim.lr: must be in (0, 10] (got -1)\n"));
        const QString out = tmp.filePath("out");
        const auto run = runCli({"run", "--lesson", edited, "--out", out});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err, "ampscope-cli: " + edited + ": fp32.json:7: optim.lr: must be in (0, 10] (got -1)\n");
        QVERIFY(!QFileInfo::exists(out));
    }

    void hostileLessonFilesAreOneLine_data() {
        QTest::addColumn<QString>("hostile");
        QTest::addColumn<QString>("line");
        QTest::newRow("a name with ..") << "climb" << "member \"my-lesson/../evil.txt\" is not a path inside the lesson";
        QTest::newRow("an absolute name") << "absolute" << "member \"/evil.txt\" is not a path inside the lesson";
        QTest::newRow("a symbolic link") << "symlink" << "member \"my-lesson/data/link\" is a symbolic link";
        QTest::newRow("a name twice") << "twice" << "member \"my-lesson/narrative.md\" appears twice";
        QTest::newRow("1031 files") << "many" << "1031 members; a lesson file may hold at most 1024";
        QTest::newRow("a zip bomb (4 MiB declared as 1000 bytes)") << "bomb" << "inflates past the 1000 bytes";
        QTest::newRow("a file declared 600 MiB") << "huge" << "inflates to 629145600 bytes";
        QTest::newRow("two files declared 300 MiB each") << "sum" << "inflate to more than 536870912 bytes";
        QTest::newRow("a wrong CRC-32") << "crc" << "CRC-32 does not match";
        QTest::newRow("an encrypted file") << "encrypted" << "is encrypted";
        QTest::newRow("ZIP64") << "zip64" << "a ZIP64 archive";
        QTest::newRow("cut in half") << "cut" << "not a zip file";
        QTest::newRow("no scenario.json") << "no-scenario" << "holds no scenario.json";
    }
    void hostileLessonFilesAreOneLine() {
        QFETCH(QString, hostile);
        QFETCH(QString, line);
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QString file = tmp.filePath("hostile.ampscope-lesson");
        QProcess python;
        python.start(QString::fromStdString(ampscope::test::envOr("AMPSCOPE_PYTHON", "/usr/bin/python3")),
                     {QString::fromStdString(ampscope::test::sourceDir()) + "/tests/tools/write_lesson_zip.py", lesson,
                      file, "my-lesson/", "deflate", hostile});
        QVERIFY(python.waitForFinished(60000) && python.exitCode() == 0);
        for (const QStringList& args : {QStringList{"check-lesson", file},
                                        QStringList{"run", "--lesson", file, "--out", tmp.filePath("out")}}) {
            const auto r = runCli(args, 30000);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.startsWith("ampscope-cli: " + file + ": ") && r.err.contains(line) &&
                         r.err.count('\n') == 1,
                     qPrintable(r.err));
            note(args.first() + (args.first() == "run" ? " --lesson: " : ": ") + QTest::currentDataTag(), r.exitCode,
                 r.err, tmp.path());
        }
        QVERIFY(!QFileInfo::exists(tmp.filePath("out")));
    }

    void badLessonFileArgumentsAreOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("line");
        QTest::newRow("pack-lesson without --out")
            << QStringList{"pack-lesson", "lesson"}
            << "pack-lesson: give a lesson folder and the file to write (pack-lesson FOLDER --out FILE.ampscope-lesson)";
        QTest::newRow("pack-lesson to another suffix")
            << QStringList{"pack-lesson", "lesson", "--out", "lesson.zip"}
            << "pack-lesson: --out lesson.zip: a lesson file's name ends in .ampscope-lesson";
        QTest::newRow("pack-lesson of no folder")
            << QStringList{"pack-lesson", "$TMP/none", "--out", "$TMP/x.ampscope-lesson"}
            << "$TMP/none: not a lesson folder (no such directory)";
        QTest::newRow("check-lesson of a file that is no zip")
            << QStringList{"check-lesson", "$TMP/text.ampscope-lesson"}
            << "$TMP/text.ampscope-lesson: not a zip file (no end of central directory record)";
        QTest::newRow("run --lesson of a file that is no zip")
            << QStringList{"run", "--lesson", "$TMP/text.ampscope-lesson", "--out", "$TMP/out"}
            << "$TMP/text.ampscope-lesson: not a zip file (no end of central directory record)";
    }
    void badLessonFileArgumentsAreOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, line);
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("text.ampscope-lesson"), QByteArray(100, 'x'));
        for (QString& arg : args) arg.replace("$TMP", tmp.path());
        const auto r = runCli(args, 30000);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, "ampscope-cli: " + QString(line).replace("$TMP", tmp.path()) + "\n");
        QVERIFY(!QFileInfo::exists(tmp.filePath("out")) && !QFileInfo::exists(tmp.filePath("x.ampscope-lesson")));
    }
};

QTEST_GUILESS_MAIN(CliLessonFilesTest)
#include "test_cli_lesson_files.moc"
