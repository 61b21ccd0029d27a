// Lesson files (core/scenarios/LessonArchive.h over ZipArchive.h) against an independent
// implementation of the zip format, Python's zipfile module: a lesson AmpScope packs,
// zipfile reads back with every CRC right and every file's bytes the same; lessons zipfile
// writes (deflated or stored, the lesson at the top or in one folder) open as the same
// lesson. Every hostile or damaged lesson file is refused in one line that names it, and
// leaves nothing behind in the temporary folder: names that leave the folder, a symbolic
// link, a name twice, too many files, a file declared small that inflates large (a zip
// bomb), one declared too large, files that add up past the limit, a wrong CRC-32, an
// encrypted or unknown-method file, ZIP64, not a zip, a zip cut short, no scenario.json.
#include <QtCore/QCryptographicHash>
#include <QtCore/QDir>
#include <QtCore/QDirIterator>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <filesystem>

#include "ExactCompare.h"
#include "LessonSupport.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "scenarios/LessonArchive.h"
#include "scenarios/LessonFolder.h"
#include "scenarios/LessonLimits.h"

namespace {

using ampscope::test::writeBytes;

// Python with zipfile; AMPSCOPE_PYTHON names another interpreter.
QString python() {
    return QString::fromStdString(ampscope::test::envOr("AMPSCOPE_PYTHON", "/usr/bin/python3"));
}

// Runs Python with `args` (a script file, or -c and its text); its standard output, or a
// failure with its standard error.
QString runPythonWith(const QStringList& args) {
    QProcess process;
    process.start(python(), args);
    if (!process.waitForFinished(60000) || process.exitCode() != 0) {
        QTest::qFail(qPrintable("python: " + QString::fromUtf8(process.readAllStandardError())), __FILE__, __LINE__);
        return {};
    }
    return QString::fromUtf8(process.readAllStandardOutput());
}

QString runPython(const char* script, const QStringList& args) {
    return runPythonWith(QStringList{"-c", QString::fromLatin1(script)} + args);
}

QString runScript(const QString& script, const QStringList& args) { return runPythonWith(QStringList{script} + args); }

// Each member of a zip as zipfile reads it: "name method mode sha256", and first the
// name of the first member whose CRC-32 is wrong ("None" when all are right).
const char* kListZip = R"(
import hashlib, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    print(z.testzip())
    for i in z.infolist():
        print(i.filename, i.compress_type, oct(i.external_attr >> 16), hashlib.sha256(z.read(i)).hexdigest())
)";

// Python's zipfile writes the lesson files, good and hostile (tests/tools/write_lesson_zip.py
// says how each is made).
QString writeZipScript() {
    return QString::fromStdString(ampscope::test::sourceDir()) + "/tests/tools/write_lesson_zip.py";
}

QString sha256(const QByteArray& bytes) {
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return file.readAll();
}

// Every file under `folder`, relative, sorted.
QStringList filesUnder(const QString& folder) {
    QStringList files;
    QDirIterator it(folder, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) files << QDir(folder).relativeFilePath(it.next());
    files.sort();
    return files;
}

}  // namespace

class LessonArchiveTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY(scratch_.isValid());
        // Lesson files unpack under TMPDIR: a folder of this suite's own, so that what a
        // refused lesson leaves behind is seen.
        unpackRoot_ = scratch_.filePath("unpack");
        QVERIFY(QDir().mkpath(unpackRoot_));
        qputenv("TMPDIR", unpackRoot_.toLocal8Bit());
        lesson_ = scratch_.filePath("lesson");
        ampscope::test::writeLesson(lesson_);
        // Bytes deflate cannot shrink, so that the packer stores this file.
        QByteArray noise(4096, '\0');
        for (char& byte : noise) byte = static_cast<char>(QRandomGenerator::global()->generate() & 0xff);
        writeBytes(lesson_ + "/data/noise.bin", noise);
    }

    void aPackedLessonIsAZipThatZipfileReads() {
        const QString packed = scratch_.filePath("packed.ampscope-lesson");
        ampscope::packLesson(lesson_.toStdString(), packed.toStdString());
        const QStringList listing = runPython(kListZip, {packed}).split('\n', Qt::SkipEmptyParts);
        QVERIFY(!listing.isEmpty());
        QCOMPARE(listing.first(), QString("None"));  // every CRC-32 right
        QStringList expected;
        for (const QString& file : filesUnder(lesson_)) {
            // Deflated (8) where deflate shrinks the file, stored (0) where it cannot; a
            // regular file's mode 0644.
            const QString method = file == "data/noise.bin" ? "0" : "8";
            expected << "tiny-lesson/" + file + " " + method + " 0o100644 " + sha256(readAll(lesson_ + "/" + file));
        }
        QCOMPARE(listing.mid(1), expected);

        // The same folder packs to the same bytes.
        const QString again = scratch_.filePath("again.ampscope-lesson");
        ampscope::packLesson(lesson_.toStdString(), again.toStdString());
        QCOMPARE(readAll(again), readAll(packed));
    }

    void zipsFromZipfileOpenAsTheLesson_data() {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("method");
        QTest::newRow("deflated, in one folder") << "my-lesson/" << "deflate";
        QTest::newRow("stored, at the top") << "" << "store";
    }

    void zipsFromZipfileOpenAsTheLesson() {
        QFETCH(QString, prefix);
        QFETCH(QString, method);
        const QString file = scratch_.filePath(QString("python-%1.ampscope-lesson").arg(method));
        runScript(writeZipScript(), {lesson_, file, prefix, method, "none"});
        std::string folder;
        {
            const ampscope::UnpackedLesson unpacked(file.toStdString());
            folder = unpacked.folder();
            QVERIFY2(QString::fromStdString(folder).startsWith(unpackRoot_ + "/"), folder.c_str());
            QCOMPARE(filesUnder(QString::fromStdString(folder)), filesUnder(lesson_));
            for (const QString& name : filesUnder(lesson_))
                QCOMPARE(readAll(QString::fromStdString(folder) + "/" + name), readAll(lesson_ + "/" + name));
            const ampscope::LessonCheck check = ampscope::checkLessonFolder(folder);
            QVERIFY(check.problems.empty());
            QCOMPARE(check.lesson->name, std::string("tiny-lesson"));
            QCOMPARE(check.lesson->runs.size(), std::size_t(3));
        }
        // Gone with the UnpackedLesson.
        QVERIFY(!std::filesystem::exists(folder));
        QCOMPARE(QDir(unpackRoot_).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
    }

    void hostileLessonFilesAreRefusedInOneLine_data() {
        QTest::addColumn<QString>("hostile");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a name with ..") << "climb" << "member \"my-lesson/../evil.txt\" is not a path inside the lesson";
        QTest::newRow("an absolute name") << "absolute" << "member \"/evil.txt\" is not a path inside the lesson";
        QTest::newRow("a backslash") << "backslash" << "member \"my-lesson/a\\evil.txt\" is not a path inside";
        QTest::newRow("a . part") << "dot" << "member \"my-lesson/./evil.txt\" is not a path inside";
        QTest::newRow("a symbolic link") << "symlink" << "member \"my-lesson/data/link\" is a symbolic link";
        QTest::newRow("a name twice") << "twice" << "member \"my-lesson/narrative.md\" appears twice";
        QTest::newRow("too many files") << "many" << "1032 members; a lesson file may hold at most 1024";
        QTest::newRow("a zip bomb") << "bomb" << "member \"my-lesson/extra.bin\" inflates past the 1000 bytes";
        QTest::newRow("one file too large")
            << "huge" << "member \"my-lesson/extra.bin\" inflates to 629145600 bytes; a lesson's file may be at most 536870912";
        QTest::newRow("files too large together") << "sum" << "its members inflate to more than 536870912 bytes";
        QTest::newRow("a wrong CRC-32") << "crc" << "member \"my-lesson/extra.bin\"'s CRC-32 does not match";
        QTest::newRow("encrypted") << "encrypted" << "member \"my-lesson/extra.bin\" is encrypted";
        QTest::newRow("an unknown method") << "method" << "member \"my-lesson/extra.bin\" uses compression method 12";
        QTest::newRow("ZIP64") << "zip64" << "a ZIP64 archive";
        QTest::newRow("cut in half") << "cut" << "not a zip file (no end of central directory record)";
        QTest::newRow("no scenario.json") << "no-scenario" << "holds no scenario.json";
    }

    void hostileLessonFilesAreRefusedInOneLine() {
        QFETCH(QString, hostile);
        QFETCH(QString, expected);
        const QString file = scratch_.filePath(hostile + ".ampscope-lesson");
        runScript(writeZipScript(), {lesson_, file, "my-lesson/", "deflate", hostile});
        expectRefused(file, expected);
    }

    void notAZipIsRefused() {
        const QString file = scratch_.filePath("noise.ampscope-lesson");
        writeBytes(file, QByteArray(1000, 'x'));
        expectRefused(file, "not a zip file");
        writeBytes(file, "PK");
        expectRefused(file, "not a zip file (shorter than a zip's end record)");
        expectRefused(scratch_.filePath("missing.ampscope-lesson"), "no such file");
    }

    void packingRefusesWhatALessonFileCannotHold() {
        const QString linked = scratch_.filePath("linked");
        ampscope::test::writeLesson(linked);
        QVERIFY(QFile::link(linked + "/narrative.md", linked + "/data/again.md"));
        const QString out = scratch_.filePath("linked.ampscope-lesson");
        try {
            ampscope::packLesson(linked.toStdString(), out.toStdString());
            QFAIL("a lesson folder holding a symbolic link was packed");
        } catch (const ampscope::InputError& error) {
            QCOMPARE(QString::fromUtf8(error.what()),
                     linked + ": data/again.md is a symbolic link; a lesson file holds the lesson's own files only");
        }
        QVERIFY(!QFileInfo::exists(out));

        const QString broken = scratch_.filePath("broken");
        ampscope::test::writeLesson(broken);
        QVERIFY(QFile::remove(broken + "/bf16.json"));
        try {
            ampscope::packLesson(broken.toStdString(), out.toStdString());
            QFAIL("a lesson with a problem was packed");
        } catch (const ampscope::InputError& error) {
            QVERIFY2(QString::fromUtf8(error.what()).startsWith(broken + "/bf16.json"), error.what());
        }
        QVERIFY(!QFileInfo::exists(out));
    }

private:
    void expectRefused(const QString& file, const QString& expected) {
        try {
            const ampscope::UnpackedLesson unpacked(file.toStdString());
            QFAIL(qPrintable("opened: " + file));
        } catch (const ampscope::InputError& error) {
            const QString line = QString::fromUtf8(error.what());
            QVERIFY2(line.startsWith(file + ": ") && line.contains(expected) && !line.contains('\n'), qPrintable(line));
        }
        QCOMPARE(QDir(unpackRoot_).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
    }

    QTemporaryDir scratch_;
    QString unpackRoot_;
    QString lesson_;
};

QTEST_GUILESS_MAIN(LessonArchiveTest)
#include "test_lesson_archive.moc"
