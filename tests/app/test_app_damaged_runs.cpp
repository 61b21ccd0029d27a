// The window on damaged run directories: `ampscope --open-run DIR --screenshot PNG`, the
// real binary offscreen, on every run-directory case of docs/bad-input.md ("Run
// directories") and the ones a new user met (a summary.json with fields of another type,
// an events.jsonl of random bytes, a run cut off mid-write), each made from a good run
// this suite records itself.
//
// The rule each case is held to: the window ends (a hang is caught by a 120 s guard, which
// times nothing), never by a signal, and saves the picture of what it shows. A run that
// cannot be read at all is exactly one line on stderr, "ampscope: --open-run: " then the
// file and what is wrong, and exit 2. A readable run, damaged or not ended, is exit 0
// with what it holds shown: every step that is readable (nothing recorded is lost) and
// the status bar's line (printed on stdout) saying what is wrong or that it has not ended.
//
// With AMPSCOPE_BAD_INPUT_TABLE=FILE every row appends "window<TAB>input<TAB>exit<TAB>line"
// to FILE, temporary paths as $TMP (tests/bad-input-table.py renders docs/bad-input.md).
#include <sys/stat.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <cstdlib>
#include <random>
#include <string>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "engine/Engine.h"

namespace {

// Qt's offscreen platform says this on every window shown; it is not the program's.
const QString kOffscreenNoise = QStringLiteral("This plugin does not support propagateSizeHints()");
constexpr int kHangGuardMs = 120000;

// A plain file's bytes; nothing for anything else (a FIFO would block the reading).
QByteArray readBytes(const QString& path) {
    struct stat info {};
    if (::lstat(QFile::encodeName(path).constData(), &info) != 0 || !S_ISREG(info.st_mode)) return {};
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return file.write(bytes) == bytes.size();
}

// Bytes from a fixed seed: the same file, and so the same line count, on every run.
QByteArray randomBytes(qsizetype size, unsigned seed) {
    std::mt19937 generator(seed);
    QByteArray bytes(size, '\0');
    for (char& byte : bytes) byte = static_cast<char>(generator() & 0xff);
    return bytes;
}

// Lines of `bytes` a reader of events.jsonl has to skip when none is a record: those ended
// by a newline that hold more than blanks (space, tab, CR), plus the last, unended one
// when it does and `countUnended` (a complete run's reader calls it torn; a follower waits
// for the rest of it).
int unreadableLines(const QByteArray& bytes, bool countUnended) {
    int count = 0;
    qsizetype start = 0;
    const auto blank = [&](qsizetype from, qsizetype to) {
        for (qsizetype i = from; i < to; ++i)
            if (bytes[i] != ' ' && bytes[i] != '\t' && bytes[i] != '\r') return false;
        return true;
    };
    for (qsizetype newline = bytes.indexOf('\n'); newline >= 0; newline = bytes.indexOf('\n', start)) {
        if (!blank(start, newline)) ++count;
        start = newline + 1;
    }
    if (countUnended && !blank(start, bytes.size())) ++count;
    return count;
}

// Step records among the whole lines of an events.jsonl the engine wrote.
int wholeStepLines(const QByteArray& bytes) {
    int steps = 0;
    for (const QByteArray& line : bytes.left(bytes.lastIndexOf('\n') + 1).split('\n'))
        if (line.contains("\"type\":\"step\"")) ++steps;
    return steps;
}

QByteArray nested(int depth) {
    return QByteArray(depth, '[') + QByteArray(depth, ']');
}

// Puts `line` in as line `at` (1-based) of `events`.
QByteArray withLine(const QByteArray& events, int at, const QByteArray& line) {
    qsizetype offset = 0;
    for (int i = 1; i < at; ++i) offset = events.indexOf('\n', offset) + 1;
    return events.left(offset) + line + '\n' + events.mid(offset);
}

// The first line (run_start) with its schema_version replaced.
QByteArray withEventsSchema(const QByteArray& events, const QByteArray& version) {
    const qsizetype end = events.indexOf('\n');
    QByteArray first = events.left(end);
    first.replace("\"schema_version\":1,", "\"schema_version\":" + version + ",");
    return first + events.mid(end);
}

// Appends one row to $AMPSCOPE_BAD_INPUT_TABLE (when set), temporary paths as $TMP.
void note(const QString& input, int exitCode, QString line, const QString& tmp) {
    const char* file = std::getenv("AMPSCOPE_BAD_INPUT_TABLE");
    if (!file || !*file) return;
    line.replace(tmp, QStringLiteral("$TMP"));
    line.replace(QLatin1Char('\t'), QLatin1Char(' '));
    QFile out(QString::fromLocal8Bit(file));
    if (!out.open(QIODevice::Append | QIODevice::Text)) return;
    out.write((QStringLiteral("window\t%1\t%2\t%3\n").arg(input).arg(exitCode).arg(line)).toUtf8());
}

struct WindowRun {
    bool ended = false;
    QString error;  // QProcess's, when it did not end
    bool crashed = false;
    int exitCode = -1;
    QString out;
    QStringList errLines;  // stderr's lines, the offscreen platform's own aside
};

}  // namespace

class DamagedRunsTest : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString good_;          // the good run, recorded once
    QByteArray goodEvents_;
    int goodSteps_ = 0;
    QString window_;

    WindowRun openInWindow(const QString& dir, const QString& png) {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.remove(QStringLiteral("DISPLAY"));
        environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
        // A runtime directory of its own: without one Qt says so on stderr.
        const QString runtime = tmp_.filePath(QStringLiteral("xdg-runtime"));
        QDir().mkpath(runtime);
        QFile::setPermissions(runtime, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtime);
        process.setProcessEnvironment(environment);
        process.setWorkingDirectory(tmp_.path());
        process.start(window_, {QStringLiteral("--open-run"), dir, QStringLiteral("--screenshot"), png});
        WindowRun r;
        r.ended = process.waitForFinished(kHangGuardMs);
        if (!r.ended) {
            r.error = process.errorString();
            process.kill();
            process.waitForFinished();
        }
        r.crashed = process.exitStatus() != QProcess::NormalExit;
        r.exitCode = process.exitCode();
        r.out = QString::fromUtf8(process.readAllStandardOutput());
        for (const QString& line : QString::fromUtf8(process.readAllStandardError()).split(QLatin1Char('\n')))
            if (!line.isEmpty() && line != kOffscreenNoise) r.errLines << line;
        return r;
    }

    // A copy of the good run at DIR, then damaged as `kind` says; false: unknown kind.
    bool damage(const QString& kind, const QString& dir) {
        QDir().mkpath(dir);
        for (const char* name : {"config.json", "events.jsonl", "summary.json"})
            if (!QFile::copy(good_ + QLatin1Char('/') + QLatin1String(name), dir + QLatin1Char('/') + QLatin1String(name)))
                return false;
        const QString config = dir + QStringLiteral("/config.json");
        const QString events = dir + QStringLiteral("/events.jsonl");
        const QString summary = dir + QStringLiteral("/summary.json");
        const QByteArray stepLine = goodEvents_.mid(goodEvents_.indexOf("{\"epoch\""),
                                                    goodEvents_.indexOf('\n', goodEvents_.indexOf("{\"epoch\"")) -
                                                        goodEvents_.indexOf("{\"epoch\""));
        // Files put where the run's own should be: only the link is wrong, not what it holds.
        const auto linkOut = [&](const QString& path) {
            const QString outside = dir + QStringLiteral("-outside-") + QFileInfo(path).fileName();
            return QFile::rename(path, outside) && QFile::link(outside, path);
        };
        if (kind == QLatin1String("none")) return QDir(dir).removeRecursively();
        if (kind == QLatin1String("file")) return QDir(dir).removeRecursively() && writeBytes(dir, "not a directory");
        if (kind == QLatin1String("noconfig")) return QFile::remove(config);
        if (kind == QLatin1String("configjunk")) return writeBytes(config, "{\"schema_version\": 1,");
        if (kind == QLatin1String("configoverflow")) return writeBytes(config, "{\"schema_version\": 1e400}");
        if (kind == QLatin1String("configarray")) return writeBytes(config, "[1]");
        if (kind == QLatin1String("noversion")) return writeBytes(config, "{\"model\": {}}");
        if (kind == QLatin1String("textversion")) return writeBytes(config, "{\"schema_version\": \"1\"}");
        if (kind == QLatin1String("newer")) return writeBytes(config, "{\"schema_version\": 7}");
        if (kind == QLatin1String("hugeversion")) return writeBytes(config, "{\"schema_version\": 18446744073709551615}");
        if (kind == QLatin1String("deepconfig"))
            return writeBytes(config, "{\"schema_version\": 1, \"x\": " + nested(100000) + "}");
        if (kind == QLatin1String("eventsdir")) return QFile::remove(events) && QDir().mkpath(events);
        if (kind == QLatin1String("eventslink")) return linkOut(events);
        if (kind == QLatin1String("configlink")) return linkOut(config);
        if (kind == QLatin1String("summarylink")) return linkOut(summary);
        if (kind == QLatin1String("eventsfifo"))
            return QFile::remove(events) && ::mkfifo(QFile::encodeName(events).constData(), 0644) == 0;
        if (kind == QLatin1String("noevents")) return QFile::remove(events);
        if (kind == QLatin1String("emptyevents")) return writeBytes(events, {});
        if (kind == QLatin1String("torn")) return writeBytes(events, goodEvents_ + stepLine.left(17));
        if (kind == QLatin1String("garbage")) return writeBytes(events, withLine(goodEvents_, 3, "garbage \x01\x02"));
        if (kind == QLatin1String("notrecord")) return writeBytes(events, withLine(goodEvents_, 2, "[1, 2]"));
        if (kind == QLatin1String("deepline"))
            return writeBytes(events, withLine(goodEvents_, 2, "{\"type\":\"step\",\"x\":" + nested(100000) + "}"));
        if (kind == QLatin1String("newerevents")) return writeBytes(events, withEventsSchema(goodEvents_, "2"));
        if (kind == QLatin1String("wrapevents")) return writeBytes(events, withEventsSchema(goodEvents_, "4294967298"));
        if (kind == QLatin1String("badsummary")) return writeBytes(summary, "{\"status\": \"fini");
        if (kind == QLatin1String("mistypedsummary"))
            return writeBytes(summary, "{\"status\": 5, \"steps\": \"many\", \"first_nonfinite\": [1]}");
        if (kind == QLatin1String("randomevents"))
            return QFile::remove(summary) && writeBytes(config, "{\"schema_version\":1}") &&
                   writeBytes(events, randomBytes(200 * 1024, 1));
        if (kind == QLatin1String("randomeventsended"))
            return writeBytes(config, "{\"schema_version\":1}") && writeBytes(events, randomBytes(200 * 1024, 2));
        if (kind == QLatin1String("bigrandomevents"))  // more than one poll of a followed run reads
            return QFile::remove(summary) && writeBytes(events, randomBytes(5 * 1024 * 1024, 3));
        if (kind == QLatin1String("cut"))  // died mid-write: no summary, the last line half written
            return QFile::remove(summary) && writeBytes(events, goodEvents_.left(goodEvents_.size() / 2 + 7));
        return false;
    }

private Q_SLOTS:
    void initTestCase() {
        window_ = QString::fromStdString(ampscope::test::envOr("AMPSCOPE_WINDOW", ""));
        if (window_.isEmpty()) QSKIP("AMPSCOPE_WINDOW (the ampscope binary) is not set: run through ctest");
        // A build without the GUI has an ampscope without a window (its --version names no Qt).
        QProcess version;
        version.start(window_, {QStringLiteral("--version")});
        QVERIFY(version.waitForFinished(kHangGuardMs));
        if (!QString::fromUtf8(version.readAllStandardOutput()).contains(QStringLiteral(", Qt ")))
            QSKIP("this ampscope has no window (AMPSCOPE_BUILD_GUI=OFF)");
        QVERIFY(tmp_.isValid());
        // The good run every case starts from: the spirals mlp, probed every 2 steps.
        ampscope::RunConfig config = ampscope::test::spiralsMlpConfig();
        config.probes.every = 2;
        good_ = tmp_.filePath(QStringLiteral("good"));
        ampscope::Engine engine(config, good_.toStdString());
        engine.start();
        engine.wait();
        QVERIFY(QFile::exists(good_ + QStringLiteral("/summary.json")));
        goodEvents_ = readBytes(good_ + QStringLiteral("/events.jsonl"));
        goodSteps_ = wholeStepLines(goodEvents_);
        QVERIFY(goodSteps_ > 2);
        // The good run itself opens cleanly: what each case changes is all that differs.
        const WindowRun r = openInWindow(good_, tmp_.filePath(QStringLiteral("good.png")));
        QVERIFY2(r.ended && !r.crashed && r.exitCode == 0, qPrintable(r.errLines.join(QLatin1Char('\n'))));
        QVERIFY2(r.errLines.isEmpty(), qPrintable(r.errLines.join(QLatin1Char('\n'))));
        QVERIFY2(r.out.contains(QStringLiteral("ampscope: Opened %1 (%2 steps)\n").arg(good_).arg(goodSteps_)),
                 qPrintable(r.out));
    }

    void damagedRun_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("exitCode");
        // Exit 2: the one stderr line, after "ampscope: --open-run: ". Exit 0: the status
        // line printed on stdout, after "ampscope: ". $RUN: the run's directory, $STEPS:
        // the good run's steps, $UNREADABLE: lines a reader skips (unreadableLines).
        QTest::addColumn<QString>("line");
        // Exit 0: the steps shown: "all" (the good run's), "none", "whole" (its whole lines').
        QTest::addColumn<QString>("steps");

        // Refused by the reader: not a run directory, or a config.json that is not one.
        QTest::newRow("no such directory") << "none" << 2 << "$RUN: no such run directory" << "";
        QTest::newRow("a file, not a directory") << "file" << 2 << "$RUN: is a file, not a run directory" << "";
        QTest::newRow("config.json missing")
            << "noconfig" << 2 << "$RUN: missing config.json — not an AmpScope run directory" << "";
        QTest::newRow("config.json not JSON")
            << "configjunk" << 2
            << "$RUN/config.json: not valid JSON (parse error at line 1, column 22: syntax error while parsing "
               "object key - unexpected end of input; expected string literal)"
            << "";
        QTest::newRow("config.json with a number beyond double")
            << "configoverflow" << 2 << "$RUN/config.json: not valid JSON (number overflow parsing '1e400')" << "";
        QTest::newRow("config.json not an object")
            << "configarray" << 2 << "$RUN/config.json: not a JSON object — not an AmpScope config" << "";
        QTest::newRow("config.json without schema_version")
            << "noversion" << 2 << "$RUN/config.json: missing schema_version — not an AmpScope config" << "";
        QTest::newRow("config.json schema_version as text")
            << "textversion" << 2 << "$RUN/config.json: schema_version must be an integer (got \"1\")" << "";
        QTest::newRow("config.json newer schema_version")
            << "newer" << 2 << "$RUN/config.json: schema_version 7 is newer than this AmpScope reads (1)" << "";
        QTest::newRow("config.json schema_version 2^64-1")
            << "hugeversion" << 2
            << "$RUN/config.json: schema_version 18446744073709551615 is newer than this AmpScope reads (1)" << "";
        QTest::newRow("config.json nested 100000 deep")
            << "deepconfig" << 2 << "$RUN/config.json: nested deeper than 64 levels — not an AmpScope config" << "";
        // Files that are not plain files inside the run.
        QTest::newRow("events.jsonl is a directory")
            << "eventsdir" << 2
            << "$RUN/events.jsonl: is not a plain file (a directory, FIFO or device); a run directory's files "
               "must be plain files inside it"
            << "";
        QTest::newRow("events.jsonl a symbolic link out of the run")
            << "eventslink" << 2
            << "$RUN/events.jsonl: is a symbolic link; a run directory's files must be plain files inside it" << "";
        QTest::newRow("config.json a symbolic link out of the run")
            << "configlink" << 2
            << "$RUN/config.json: is a symbolic link; a run directory's files must be plain files inside it" << "";
        QTest::newRow("summary.json a symbolic link out of the run")
            << "summarylink" << 2
            << "$RUN/summary.json: is a symbolic link; a run directory's files must be plain files inside it" << "";
        QTest::newRow("events.jsonl a FIFO (would block a reader)")
            << "eventsfifo" << 2
            << "$RUN/events.jsonl: is not a plain file (a directory, FIFO or device); a run directory's files "
               "must be plain files inside it"
            << "";
        // Not one line a record: nothing of the run can be shown.
        QTest::newRow("events.jsonl 200 KB of random bytes, config.json only schema_version, no summary.json")
            << "randomevents" << 2
            << "$RUN/events.jsonl: no line of it is a record ($UNREADABLE unreadable lines): not an AmpScope "
               "run's events, nothing to show"
            << "";
        QTest::newRow("events.jsonl 200 KB of random bytes beside a summary.json")
            << "randomeventsended" << 2
            << "$RUN/events.jsonl: no line of it is a record ($UNREADABLE unreadable lines): not an AmpScope "
               "run's events, nothing to show"
            << "";
        QTest::newRow("events.jsonl 5 MB of random bytes (more than one read), no summary.json")
            << "bigrandomevents" << 2
            << "$RUN/events.jsonl: no line of it is a record ($UNREADABLE unreadable lines): not an AmpScope "
               "run's events, nothing to show"
            << "";
        // Readable: what is there is shown, and the status line says what is wrong.
        QTest::newRow("events.jsonl missing") << "noevents" << 0 << "Opened $RUN (0 steps) · 1 warning(s)" << "none";
        QTest::newRow("events.jsonl empty") << "emptyevents" << 0 << "Opened $RUN (0 steps)" << "none";
        QTest::newRow("torn last line") << "torn" << 0 << "Opened $RUN ($STEPS steps) · 1 warning(s)" << "all";
        QTest::newRow("garbage lines") << "garbage" << 0 << "Opened $RUN ($STEPS steps) · 1 warning(s)" << "all";
        QTest::newRow("a line that is JSON but no record")
            << "notrecord" << 0 << "Opened $RUN ($STEPS steps) · 1 warning(s)" << "all";
        QTest::newRow("a line nested 100000 deep")
            << "deepline" << 0 << "Opened $RUN ($STEPS steps) · 1 warning(s)" << "all";
        QTest::newRow("events schema_version newer")
            << "newerevents" << 0 << "Opened $RUN ($STEPS steps) · 1 warning(s)" << "all";
        QTest::newRow("events schema_version 4294967298")
            << "wrapevents" << 0 << "Opened $RUN ($STEPS steps) · 1 warning(s)" << "all";
        QTest::newRow("summary.json not JSON")
            << "badsummary" << 0 << "Opened $RUN ($STEPS steps) · 1 warning(s)" << "all";
        QTest::newRow("summary.json with fields of another type")
            << "mistypedsummary" << 0
            << "Opened $RUN ($STEPS steps) · $RUN/summary.json: \"status\" must be a string (got 5); \"steps\" must "
               "be an integer (got \"many\"); \"first_nonfinite\" must be an object (got [1])"
            << "all";
        // Not ended: shown as far as it was written, and said so.
        QTest::newRow("killed mid-write: events.jsonl cut mid-line, no summary.json")
            << "cut" << 0 << "Following $RUN: not ended (no summary.json yet), it may still be running" << "whole";
    }

    void damagedRun() {
        QFETCH(QString, kind);
        QFETCH(int, exitCode);
        QFETCH(QString, line);
        QFETCH(QString, steps);
        const QString dir = tmp_.filePath(kind);
        QVERIFY2(damage(kind, dir), qPrintable(QStringLiteral("could not make the case ") + kind));
        const QByteArray events = readBytes(dir + QStringLiteral("/events.jsonl"));
        const bool ended = QFile::exists(dir + QStringLiteral("/summary.json"));
        line.replace(QStringLiteral("$RUN"), dir)
            .replace(QStringLiteral("$STEPS"), QString::number(goodSteps_))
            .replace(QStringLiteral("$UNREADABLE"), QString::number(unreadableLines(events, ended)));
        const QString png = tmp_.filePath(kind + QStringLiteral(".png"));

        const WindowRun r = openInWindow(dir, png);
        QVERIFY2(r.ended, qPrintable(QStringLiteral("the window did not end within the hang guard: ") + r.error));
        QVERIFY2(!r.crashed, "the window ended by a signal");
        note(QString::fromUtf8(QTest::currentDataTag()), r.exitCode,
             r.exitCode == 2 ? r.errLines.join(QStringLiteral(" | ")) : r.out.section(QLatin1Char('\n'), 1, 1),
             tmp_.path());
        QVERIFY2(r.exitCode == exitCode, qPrintable(QStringLiteral("exit %1; stderr: %2; stdout: %3")
                                                        .arg(r.exitCode)
                                                        .arg(r.errLines.join(QLatin1Char('\n')), r.out)));
        // The picture of what the window shows, in every case.
        const QByteArray image = readBytes(png);
        QVERIFY2(image.startsWith("\x89PNG\r\n\x1a\n") && image.size() > 1000, qPrintable(png));
        if (exitCode == 2) {
            QCOMPARE(r.errLines, QStringList{QStringLiteral("ampscope: --open-run: ") + line});
            return;
        }
        QVERIFY2(r.errLines.isEmpty(), qPrintable(r.errLines.join(QLatin1Char('\n'))));
        QVERIFY2(r.out.contains(QStringLiteral("\nampscope: ") + line + QLatin1Char('\n')), qPrintable(r.out));
        // Nothing recorded is lost: every readable step is shown.
        const QRegularExpressionMatch shown =
            QRegularExpression(QStringLiteral("^ampscope: opened .*: (\\d+) steps shown in"),
                               QRegularExpression::MultilineOption)
                .match(r.out);
        QVERIFY2(shown.hasMatch(), qPrintable(r.out));
        const int expected = steps == QLatin1String("all") ? goodSteps_
                             : steps == QLatin1String("whole") ? wholeStepLines(events)
                                                               : 0;
        if (steps == QLatin1String("whole")) QVERIFY(expected > 0 && expected < goodSteps_);
        QCOMPARE(shown.captured(1).toInt(), expected);
    }
};

QTEST_GUILESS_MAIN(DamagedRunsTest)
#include "test_app_damaged_runs.moc"
