// Run directory: RunWriter writes, readRunDirectory loads (RunRecordReader streams),
// RunFollower follows.
// The crash cases (torn line, kill -9 mid-run, a disk that fills) are the point:
// a run directory is what users open after something went wrong.
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "common/BuildInfo.h"
#include "common/InputError.h"
#include "config/RunConfig.h"
#include "run/EventSchema.h"
#include "run/KnownRecordTypes.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"
#include "run/RunSetFolder.h"
#include "run/RunWriter.h"

using ampscope::InputError;
using ampscope::readRunDirectory;
using ampscope::RunData;
using ampscope::RunFollower;
using ampscope::RunRecordReader;
using ampscope::RunStartRecord;
using ampscope::RunWriteError;
using ampscope::RunWriter;
using nlohmann::json;

namespace {

std::string pathIn(const QTemporaryDir& dir, const char* name) {
    return dir.path().toStdString() + "/" + name;
}

void writeFile(const std::string& path, const std::string& bytes, bool append = false) {
    std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    out << bytes;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

json sampleConfig() {
    return json{{"schema_version", ampscope::kConfigSchemaVersion},
                {"model", {{"name", "mlp"}, {"hidden", {128, 64}}}},
                {"precision", {{"mode", "fp16"}}},
                {"seed", 7}};
}

json stepRecord(int step) {
    return json{{"type", "step"}, {"step", step}, {"epoch", 0}, {"loss", 1.0 / (step + 1)},
                {"lr", 0.01}};
}

// A run directory written by hand, so each test controls every byte.
std::string makeRunDir(const QTemporaryDir& tmp, const std::string& events,
                       bool withEvents = true) {
    const std::string dir = pathIn(tmp, "run");
    QDir().mkpath(QString::fromStdString(dir));
    writeFile(dir + "/config.json", sampleConfig().dump(2));
    if (withEvents) {
        writeFile(dir + "/events.jsonl", events);
    }
    return dir;
}

std::string runStartLine() {
    return R"({"type":"run_start","schema_version":1,"time":"2024-01-01T00:00:00Z"})"
           "\n";
}

std::string stepLine(int step) { return stepRecord(step).dump() + "\n"; }

bool anyContains(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& line : lines) {
        if (line.find(part) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) {
        text += line + "\n";
    }
    return text;
}

template <typename F>
std::string inputErrorOf(F&& action) {
    try {
        action();
    } catch (const InputError& error) {
        return error.what();
    }
    return "(no InputError)";
}

// Steps must come back as 0, 1, 2, ... after run_start: in order, none lost
// in the middle, none twice.
bool stepsAreConsecutive(const std::vector<json>& events, std::size_t from) {
    for (std::size_t i = from; i < events.size(); ++i) {
        if (events[i].value("step", -1) != static_cast<int>(i - from)) {
            return false;
        }
    }
    return true;
}

}  // namespace

class TestRunDirectory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void writeThenReadBack();
    void runStartCarriesExtraFields();
    void appendRejectsRecordsWithoutType();
    void tornLastLineIsIgnored();
    void garbageMiddleLineIsSkipped();
    void manyGarbageLinesAreCounted();
    void lastLineWithoutNewlineThatParsesIsKept();
    void emptyEventsFile();
    void missingEventsFile();
    void missingConfig();
    void missingDirectoryAndFileInstead();
    void configNotJson();
    void newerConfigSchemaIsRefused();
    void newerEventsSchemaLoadsWithWarning();
    void unknownRecordTypesAreSkippedWithOneWarningPerType();
    void everyTypeTheEngineWritesIsKnown();
    void followerSkipsUnknownTypesWithOneWarningPerType();
    void corruptSummaryMeansIncomplete();
    void summaryIsAtomic();
    void writerRefusesExistingRun();
    void writerRefusesFile();
    void writerAcceptsEmptyExistingDirectory();
    void unwritableDirectory();
    void pathUnderAFile();
    void writeFailureThrowsRunWriteError();
    void flushCadence();
    void sizeTriggeredFlushWritesWholeLines();
    void followerReadsPiecesExactlyOnce();
    void followerWaitsForEventsFile();
    void followerFollowsLiveWriter();
    void followerBoundedPolls();
    void killNineLeavesWholeLines();
    void streamedReadMatchesWholeRead();
    void streamedReadRefusesLikeWholeRead();
    void appendTextWritesTheLineAsGiven();
    void followerRefusesALinkedEventsFile();
    void extraFilesAreReadOnlyWhenPlainAndInside();
    void rankDirectoriesOfARecordedRun();
    void runSetOfAFolder();
};

void TestRunDirectory::writeThenReadBack() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "nested/deeper/run");  // parents created
    const json summary = {{"status", "finished"}, {"steps", 50}, {"final_loss", 0.02}};
    {
        RunWriter writer(dir, sampleConfig());
        QCOMPARE(writer.directory(), dir);
        for (int step = 0; step < 50; ++step) {
            writer.append(stepRecord(step));
        }
        writer.append({{"type", "run_end"}, {"status", "finished"}, {"step", 50}});
        writer.writeSummary(summary);
        writer.close();
    }
    const RunData run = readRunDirectory(dir);
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QCOMPARE(run.config, sampleConfig());
    QCOMPARE(run.schema_version, 1);
    QCOMPARE(run.events_schema_version, ampscope::kEventsSchemaVersion);
    QCOMPARE(run.events.size(), std::size_t(52));
    QCOMPARE(run.events.front()["type"], "run_start");
    QCOMPARE(run.events.front()["schema_version"], 1);
    QVERIFY(run.events.front()["time"].is_string());
    QVERIFY(run.events.front()["ampscope_version"].is_string());
    for (int step = 0; step < 50; ++step) {
        QCOMPARE(run.events[step + 1], stepRecord(step));
    }
    QCOMPARE(run.events.back()["type"], "run_end");
    QVERIFY(run.complete);
    QVERIFY(run.summary.has_value());
    QCOMPARE(*run.summary, summary);
    QCOMPARE(run.skipped_lines, 0);
    QVERIFY(!run.torn_last_line);
}

void TestRunDirectory::runStartCarriesExtraFields() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    {
        // The writer's own fields win over a caller's attempt to set them.
        RunStartRecord start;
        start.device = "cpu";
        start.threads = 2;
        start.schemaVersion = 99;
        start.time = "1999-01-01T00:00:00Z";
        start.ampscopeVersion = "0.0.0";
        RunWriter writer(dir, sampleConfig(), start);
    }
    const RunData run = readRunDirectory(dir);
    QCOMPARE(run.events.size(), std::size_t(1));
    QCOMPARE(run.events[0]["device"], "cpu");
    QCOMPARE(run.events[0]["threads"], 2);
    QCOMPARE(run.events[0]["schema_version"], 1);
    QCOMPARE(run.events[0]["ampscope_version"], std::string(ampscope::build::kVersion));
    QVERIFY(run.events[0]["time"] != "1999-01-01T00:00:00Z");
    QVERIFY(!run.complete);
}

void TestRunDirectory::appendRejectsRecordsWithoutType() {
    QTemporaryDir tmp;
    RunWriter writer(pathIn(tmp, "run"), sampleConfig());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writer.append(json{{"step", 1}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writer.append(json{{"type", 3}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writer.append(json::array({1, 2})));
    writer.close();
    QVERIFY_THROWS_EXCEPTION(std::logic_error, writer.append(stepRecord(0)));
}

void TestRunDirectory::tornLastLineIsIgnored() {
    QTemporaryDir tmp;
    const std::string torn = R"({"type":"step","st)";
    const std::string dir = makeRunDir(tmp, runStartLine() + stepLine(0) + stepLine(1) + torn);
    const RunData run = readRunDirectory(dir);
    QCOMPARE(run.events.size(), std::size_t(3));
    QVERIFY(stepsAreConsecutive(run.events, 1));
    QVERIFY(run.torn_last_line);
    QCOMPARE(run.skipped_lines, 0);
    QCOMPARE(run.warnings.size(), std::size_t(1));
    QCOMPARE(run.warnings[0], "events.jsonl: ignored a torn last line (" +
                                  std::to_string(torn.size()) + " bytes)");
}

void TestRunDirectory::garbageMiddleLineIsSkipped() {
    QTemporaryDir tmp;
    const std::string dir = makeRunDir(
        tmp, runStartLine() + stepLine(0) + "{{{ not json\n" + stepLine(1) + "[1,2]\n" +
                 stepLine(2) + "\n");  // a blank line is not garbage
    const RunData run = readRunDirectory(dir);
    QCOMPARE(run.events.size(), std::size_t(4));
    QVERIFY(stepsAreConsecutive(run.events, 1));
    QCOMPARE(run.skipped_lines, 2);
    QCOMPARE(run.warnings.size(), std::size_t(2));
    QCOMPARE(run.warnings[0], "events.jsonl line 3: skipped an unreadable line (not JSON)");
    QCOMPARE(run.warnings[1], "events.jsonl line 5: skipped an unreadable line "
                              "(not an object with a string \"type\")");
    QVERIFY(!run.torn_last_line);
}

void TestRunDirectory::manyGarbageLinesAreCounted() {
    QTemporaryDir tmp;
    std::string events = runStartLine();
    for (int i = 0; i < 25; ++i) {
        events += "garbage\n";
    }
    const RunData run = readRunDirectory(makeRunDir(tmp, events + stepLine(0)));
    QCOMPARE(run.skipped_lines, 25);
    QCOMPARE(run.events.size(), std::size_t(2));
    // The first ten named, one saying more were not, one total.
    QCOMPARE(run.warnings.size(), std::size_t(ampscope::kListedBadEventLines + 2));
    QCOMPARE(run.warnings.back(), "events.jsonl: skipped 25 unreadable lines in all");
}

void TestRunDirectory::lastLineWithoutNewlineThatParsesIsKept() {
    QTemporaryDir tmp;
    const std::string last = stepRecord(1).dump();  // whole record, newline not yet written
    const RunData run = readRunDirectory(makeRunDir(tmp, runStartLine() + stepLine(0) + last));
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QCOMPARE(run.events.size(), std::size_t(3));
    QCOMPARE(run.events.back(), stepRecord(1));
    QVERIFY(!run.torn_last_line);
}

void TestRunDirectory::emptyEventsFile() {
    QTemporaryDir tmp;
    const RunData run = readRunDirectory(makeRunDir(tmp, ""));
    QVERIFY(run.events.empty());
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QVERIFY(!run.complete);
    QCOMPARE(run.events_schema_version, 0);
}

void TestRunDirectory::missingEventsFile() {
    QTemporaryDir tmp;
    const RunData run = readRunDirectory(makeRunDir(tmp, "", /*withEvents=*/false));
    QVERIFY(run.events.empty());
    QCOMPARE(run.warnings.size(), std::size_t(1));
    QCOMPARE(run.warnings[0], "events.jsonl: missing (no events recorded)");
    QCOMPARE(run.config, sampleConfig());
}

void TestRunDirectory::missingConfig() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    QDir().mkpath(QString::fromStdString(dir));
    writeFile(dir + "/events.jsonl", runStartLine());
    QCOMPARE(inputErrorOf([&] { readRunDirectory(dir); }),
             dir + ": missing config.json — not an AmpScope run directory");
}

void TestRunDirectory::missingDirectoryAndFileInstead() {
    QTemporaryDir tmp;
    const std::string missing = pathIn(tmp, "nope");
    QCOMPARE(inputErrorOf([&] { readRunDirectory(missing); }),
             missing + ": no such run directory");
    const std::string file = pathIn(tmp, "file.txt");
    writeFile(file, "hello\n");
    QCOMPARE(inputErrorOf([&] { readRunDirectory(file); }),
             file + ": is a file, not a run directory");
}

void TestRunDirectory::configNotJson() {
    QTemporaryDir tmp;
    const std::string dir = makeRunDir(tmp, runStartLine());
    writeFile(dir + "/config.json", "{\"schema_version\": 1,,}");
    const std::string message = inputErrorOf([&] { readRunDirectory(dir); });
    QVERIFY2(message.rfind(dir + "/config.json: not valid JSON (", 0) == 0, message.c_str());
    QVERIFY2(message.find("line 1") != std::string::npos, message.c_str());

    writeFile(dir + "/config.json", "[1]");
    QCOMPARE(inputErrorOf([&] { readRunDirectory(dir); }),
             dir + "/config.json: not a JSON object — not an AmpScope config");
    writeFile(dir + "/config.json", "{\"seed\": 1}");
    QCOMPARE(inputErrorOf([&] { readRunDirectory(dir); }),
             dir + "/config.json: missing schema_version — not an AmpScope config");
    writeFile(dir + "/config.json", "{\"schema_version\": \"1\"}");
    QCOMPARE(inputErrorOf([&] { readRunDirectory(dir); }),
             dir + "/config.json: schema_version must be an integer (got \"1\")");
}

void TestRunDirectory::newerConfigSchemaIsRefused() {
    QTemporaryDir tmp;
    const std::string dir = makeRunDir(tmp, runStartLine());
    json config = sampleConfig();
    config["schema_version"] = 7;
    writeFile(dir + "/config.json", config.dump());
    QCOMPARE(inputErrorOf([&] { readRunDirectory(dir); }),
             dir + "/config.json: schema_version 7 is newer than this AmpScope reads (1)");
}

void TestRunDirectory::newerEventsSchemaLoadsWithWarning() {
    QTemporaryDir tmp;
    const std::string dir = makeRunDir(
        tmp, "{\"type\":\"run_start\",\"schema_version\":3}\n" + stepLine(0) +
                 "{\"type\":\"hologram\",\"step\":0}\n");
    const RunData run = readRunDirectory(dir);
    QCOMPARE(run.events_schema_version, 3);
    QCOMPARE(run.events.size(), std::size_t(2));  // the unknown type is skipped
    QCOMPARE(run.events[1]["type"], "step");
    QCOMPARE(run.warnings.size(), std::size_t(2));
    QCOMPARE(run.warnings[0],
             "events.jsonl: skipped 1 record of unknown type \"hologram\" (newer schema?)");
    QVERIFY2(run.warnings[1].rfind("events.jsonl: schema_version 3 is newer than this "
                                   "AmpScope reads (1)",
                                   0) == 0,
             run.warnings[1].c_str());
}

void TestRunDirectory::unknownRecordTypesAreSkippedWithOneWarningPerType() {
    QTemporaryDir tmp;
    const std::string foo = "{\"type\":\"foo\",\"step\":1}\n";
    const std::string bar = "{\"type\":\"bar\"}\n";
    const std::string dir =
        makeRunDir(tmp, runStartLine() + foo + stepLine(1) + bar + foo + stepLine(2) + foo +
                            "{\"type\":\"shadow\",\"step\":2,\"layers\":[]}\n");
    const RunData run = readRunDirectory(dir);
    QCOMPARE(run.events.size(), std::size_t(4));  // run_start, two steps, the shadow record
    QCOMPARE(run.events[1], stepRecord(1));
    QCOMPARE(run.events[2], stepRecord(2));
    QCOMPARE(run.events[3]["type"], "shadow");
    QCOMPARE(run.skipped_unknown_records, 4);
    QCOMPARE(run.skipped_lines, 0);
    QCOMPARE(run.warnings.size(), std::size_t(2));  // one per type, in order of first sight
    QCOMPARE(run.warnings[0], "events.jsonl: skipped 3 records of unknown type \"foo\" (newer schema?)");
    QCOMPARE(run.warnings[1], "events.jsonl: skipped 1 record of unknown type \"bar\" (newer schema?)");
}

void TestRunDirectory::everyTypeTheEngineWritesIsKnown() {
    // The probe and lock-step records of this build must not be skipped as "unknown".
    for (const char* type : {"run_start", "run_info", "step", "epoch", "fault", "error", "run_end", "histogram",
                             "underflow", "nonfinite", "update_ratio", "shadow", "lockstep", "op_dtypes",
                             "memory", "sensitivity"})
        QVERIFY2(ampscope::isKnownRecordType(type), type);
    QVERIFY(!ampscope::isKnownRecordType("hologram"));
    QVERIFY(!ampscope::isKnownRecordType(""));
}

void TestRunDirectory::followerSkipsUnknownTypesWithOneWarningPerType() {
    QTemporaryDir tmp;
    const std::string dir = makeRunDir(tmp, "");
    const std::string events = dir + "/events.jsonl";
    const std::string foo = "{\"type\":\"foo\"}\n";
    RunFollower follower(dir);
    writeFile(events, runStartLine() + foo + stepLine(1), true);
    auto got = follower.poll();
    QCOMPARE(got.size(), std::size_t(2));
    QCOMPARE(got[1], stepRecord(1));
    QCOMPARE(follower.warnings().size(), std::size_t(1));
    QCOMPARE(follower.warnings()[0], "events.jsonl: skipped 1 record of unknown type \"foo\" (newer schema?)");
    writeFile(events, "junk\n" + foo + foo + stepLine(2), true);
    got = follower.poll();
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0], stepRecord(2));
    // Still one line for "foo", its count brought up to date; the junk line has its own.
    QCOMPARE(follower.warnings().size(), std::size_t(2));
    QCOMPARE(follower.warnings()[0], "events.jsonl: skipped 3 records of unknown type \"foo\" (newer schema?)");
    QCOMPARE(follower.warnings()[1], "events.jsonl line 4: skipped an unreadable line (not JSON)");
    // The unknown last line without newline is settled (and skipped) with the summary.
    writeFile(events, "{\"type\":\"baz\"}", true);
    writeFile(dir + "/summary.json", "{\"status\":\"finished\"}");
    QVERIFY(follower.poll().empty());
    QVERIFY(follower.finished());
    QCOMPARE(follower.warnings().size(), std::size_t(3));
    QCOMPARE(follower.warnings()[2], "events.jsonl: skipped 1 record of unknown type \"baz\" (newer schema?)");
}

void TestRunDirectory::corruptSummaryMeansIncomplete() {
    QTemporaryDir tmp;
    const std::string dir = makeRunDir(tmp, runStartLine() + stepLine(0));
    writeFile(dir + "/summary.json", "{\"status\": \"fini");
    const RunData run = readRunDirectory(dir);
    QVERIFY(!run.complete);
    QVERIFY(!run.summary.has_value());
    QCOMPARE(run.events.size(), std::size_t(2));
    QVERIFY2(anyContains(run.warnings, "summary.json: not a valid JSON object"),
             joined(run.warnings).c_str());
}

void TestRunDirectory::summaryIsAtomic() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    RunWriter writer(dir, sampleConfig());
    writer.append(stepRecord(0));
    writer.writeSummary({{"status", "finished"}, {"steps", 1}});
    // A second summary replaces the first whole (the same rename path).
    writer.writeSummary({{"status", "finished"}, {"steps", 2}});
    writer.close();

    const QStringList entries =
        QDir(QString::fromStdString(dir)).entryList(QDir::Files | QDir::Hidden, QDir::Name);
    QCOMPARE(entries, QStringList({"config.json", "events.jsonl", "summary.json"}));
    const json summary = json::parse(readFile(dir + "/summary.json"));
    QCOMPARE(summary["steps"], 2);
    QCOMPARE(json::parse(readFile(dir + "/config.json")), sampleConfig());
    // writeSummary flushed the events before the summary appeared.
    QCOMPARE(readRunDirectory(dir).events.size(), std::size_t(2));

    const std::string other = pathIn(tmp, "plain.json");
    RunWriter::writeJsonAtomically(other, json{{"a", 1}});
    QCOMPARE(json::parse(readFile(other)), json({{"a", 1}}));
    QVERIFY_THROWS_EXCEPTION(RunWriteError,
                             RunWriter::writeJsonAtomically(pathIn(tmp, "no/such/x.json"),
                                                            json::object()));
}

void TestRunDirectory::writerRefusesExistingRun() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    { RunWriter first(dir, sampleConfig()); }
    const std::string before = readFile(dir + "/events.jsonl");
    QCOMPARE(inputErrorOf([&] { RunWriter second(dir, sampleConfig()); }),
             dir + ": already holds a run (events.jsonl); choose another --out");
    QCOMPARE(readFile(dir + "/events.jsonl"), before);  // untouched
}

void TestRunDirectory::writerRefusesFile() {
    QTemporaryDir tmp;
    const std::string file = pathIn(tmp, "file.txt");
    writeFile(file, "x");
    QCOMPARE(inputErrorOf([&] { RunWriter writer(file, sampleConfig()); }),
             file + ": exists and is not a directory");
}

void TestRunDirectory::writerAcceptsEmptyExistingDirectory() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString() + "/";  // trailing slash too
    auto writer = RunWriter::open(dir, sampleConfig());
    writer->close();
    QVERIFY(QFile::exists(tmp.filePath("events.jsonl")));
    QCOMPARE(readRunDirectory(dir).events.size(), std::size_t(1));
}

void TestRunDirectory::unwritableDirectory() {
    if (::geteuid() == 0) {
        QSKIP("running as root: permissions do not stop root (pathUnderAFile covers the path)");
    }
    QTemporaryDir tmp;
    const std::string locked = pathIn(tmp, "locked");
    QDir().mkpath(QString::fromStdString(locked));
    QCOMPARE(::chmod(locked.c_str(), 0500), 0);
    const std::string dir = locked + "/run";
    QCOMPARE(inputErrorOf([&] { RunWriter writer(dir, sampleConfig()); }),
             dir + ": cannot create (Permission denied)");
    QCOMPARE(inputErrorOf([&] { RunWriter writer(locked, sampleConfig()); }),
             locked + ": cannot write (Permission denied)");
    ::chmod(locked.c_str(), 0700);
}

void TestRunDirectory::pathUnderAFile() {
    QTemporaryDir tmp;
    const std::string file = pathIn(tmp, "file.txt");
    writeFile(file, "x");
    const std::string dir = file + "/run";
    QCOMPARE(inputErrorOf([&] { RunWriter writer(dir, sampleConfig()); }),
             dir + ": cannot create (Not a directory)");
    QCOMPARE(inputErrorOf([&] { readRunDirectory(dir); }), dir + ": no such run directory");
}

// The disk "fills" in a child process: RLIMIT_FSIZE makes write(2) first write
// short (up to the limit) and then fail with EFBIG, the same path ENOSPC takes.
void TestRunDirectory::writeFailureThrowsRunWriteError() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        ::signal(SIGXFSZ, SIG_IGN);  // the default action kills the process
        int code = 0;
        try {
            RunWriter writer(dir, sampleConfig());
            const rlimit limit{4096, 4096};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            std::string expected = dir + "/events.jsonl: write failed (File too large)";
            try {
                for (int step = 0; step < 5000; ++step) {
                    writer.append(stepRecord(step));
                }
                writer.flush();
                code = 10;  // never failed
            } catch (const RunWriteError& error) {
                if (error.what() != expected || error.error() != EFBIG) {
                    std::fprintf(stderr, "unexpected: %s\n", error.what());
                    code = 11;
                }
            }
            // Sticky: later appends fail the same way, rather than leave a hole.
            if (code == 0) {
                try {
                    writer.append(stepRecord(9999));
                    code = 12;
                } catch (const RunWriteError& error) {
                    code = error.what() == expected ? 0 : 13;
                }
            }
            // The summary still gets written (a small, separate file).
            if (code == 0) {
                try {
                    writer.writeSummary({{"status", "error"}});
                } catch (const RunWriteError& error) {
                    std::fprintf(stderr, "summary: %s\n", error.what());
                    code = 14;
                }
            }
        } catch (...) {
            code = 15;
        }
        ::_exit(code);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);

    // The partly written line was cut back: the file ends on a whole line.
    const std::string events = readFile(dir + "/events.jsonl");
    QVERIFY(!events.empty());
    QCOMPARE(events.back(), '\n');
    const RunData run = readRunDirectory(dir);
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QVERIFY(run.complete);
    QCOMPARE((*run.summary)["status"], "error");
}

void TestRunDirectory::flushCadence() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    QElapsedTimer sinceOpen;
    sinceOpen.start();
    RunWriter writer(dir, sampleConfig());
    for (int step = 0; step < 10; ++step) {
        writer.append(stepRecord(step));
    }
    // Buffered, not written: another reader sees run_start only.
    QCOMPARE(readRunDirectory(dir).events.size(), std::size_t(1));
    const bool due = writer.flushIfDue();
    if (sinceOpen.elapsed() < 150) {
        QVERIFY(!due);  // too soon after the run_start write
        QCOMPARE(readRunDirectory(dir).events.size(), std::size_t(1));
    }
    std::this_thread::sleep_for(RunWriter::kFlushInterval + std::chrono::milliseconds(50));
    writer.append(stepRecord(10));
    QVERIFY(writer.flushIfDue());
    QCOMPARE(writer.bufferedBytes(), std::size_t(0));
    QCOMPARE(readRunDirectory(dir).events.size(), std::size_t(12));
    QVERIFY(!writer.flushIfDue());  // nothing buffered

    writer.append(stepRecord(11));
    QCOMPARE(readRunDirectory(dir).events.size(), std::size_t(12));
    writer.flush();
    const RunData run = readRunDirectory(dir);
    QCOMPARE(run.events.size(), std::size_t(13));
    QVERIFY(stepsAreConsecutive(run.events, 1));
}

void TestRunDirectory::sizeTriggeredFlushWritesWholeLines() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    RunWriter writer(dir, sampleConfig());
    const std::string payload(500, 'x');
    int appended = 0;
    // Past kFlushBytes the buffer goes out without any flush call.
    while (readFile(dir + "/events.jsonl").size() < RunWriter::kFlushBytes) {
        json record = stepRecord(appended++);
        record["payload"] = payload;
        writer.append(record);
        QVERIFY(appended < 1000);
    }
    QVERIFY(writer.bufferedBytes() < RunWriter::kFlushBytes);
    const std::string events = readFile(dir + "/events.jsonl");
    QCOMPARE(events.back(), '\n');
    const RunData run = readRunDirectory(dir);
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QVERIFY(stepsAreConsecutive(run.events, 1));
    QCOMPARE(static_cast<int>(run.events.size()), appended + 1);  // all of them, here
}

void TestRunDirectory::followerReadsPiecesExactlyOnce() {
    QTemporaryDir tmp;
    const std::string dir = makeRunDir(tmp, "");
    const std::string events = dir + "/events.jsonl";
    RunFollower follower(dir);
    QVERIFY(follower.poll().empty());

    const std::string line1 = stepLine(1);
    writeFile(events, runStartLine() + line1.substr(0, 10), true);  // half a line
    std::vector<json> got = follower.poll();
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0]["type"], "run_start");
    QVERIFY(follower.poll().empty());  // the half line stays pending

    writeFile(events, line1.substr(10), true);  // the rest, newline included
    got = follower.poll();
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0], stepRecord(1));
    QVERIFY(follower.poll().empty());

    writeFile(events, "junk\n" + stepLine(2), true);
    got = follower.poll();
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0], stepRecord(2));
    QCOMPARE(follower.skippedLines(), 1);
    QCOMPARE(follower.warnings().size(), std::size_t(1));
    QCOMPARE(follower.warnings()[0],
             "events.jsonl line 3: skipped an unreadable line (not JSON)");
    QVERIFY(!follower.finished());

    // A last line without its newline is settled once the summary is there.
    writeFile(events, stepRecord(3).dump(), true);
    QVERIFY(follower.poll().empty());
    QVERIFY(!follower.finished());
    writeFile(dir + "/summary.json", "{\"status\":\"finished\"}");
    got = follower.poll();
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0], stepRecord(3));
    QVERIFY(follower.finished());
    QVERIFY(follower.poll().empty());
}

void TestRunDirectory::followerWaitsForEventsFile() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");  // nothing there yet
    RunFollower follower(dir);
    QVERIFY(follower.poll().empty());
    QVERIFY(!follower.finished());
    RunWriter writer(dir, sampleConfig());
    QCOMPARE(follower.poll().size(), std::size_t(1));  // run_start, written at open
}

void TestRunDirectory::followerFollowsLiveWriter() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    RunWriter writer(dir, sampleConfig());
    RunFollower follower(dir);
    std::vector<json> seen;
    for (int step = 0; step < 300; ++step) {
        writer.append(stepRecord(step));
        if (step % 37 == 0) {
            writer.flush();
        }
        if (step % 11 == 0) {
            for (auto& record : follower.poll()) {
                seen.push_back(std::move(record));
            }
        }
        QVERIFY(!follower.finished());
    }
    writer.writeSummary({{"status", "finished"}});
    for (auto& record : follower.poll()) {
        seen.push_back(std::move(record));
    }
    QVERIFY(follower.finished());
    QCOMPARE(seen.size(), std::size_t(301));
    QCOMPARE(seen[0]["type"], "run_start");
    QVERIFY(stepsAreConsecutive(seen, 1));
    QVERIFY(follower.warnings().empty());
}

void TestRunDirectory::followerBoundedPolls() {
    QTemporaryDir tmp;
    std::string events = runStartLine();
    for (int step = 0; step < 100; ++step) {
        events += stepLine(step);
    }
    const std::string dir = makeRunDir(tmp, events);
    writeFile(dir + "/summary.json", "{}");
    RunFollower follower(dir);
    std::vector<json> seen;
    int polls = 0;
    while (!follower.finished() && polls < 10000) {
        for (auto& record : follower.poll(/*maxBytes=*/37)) {
            seen.push_back(std::move(record));
        }
        ++polls;
        QVERIFY(follower.finished() == follower.caughtUp());
    }
    QVERIFY(follower.finished());
    QVERIFY(polls > 100);
    QCOMPARE(seen.size(), std::size_t(101));
    QVERIFY(stepsAreConsecutive(seen, 1));
}

// A child writes 1000 big-ish lines, flushing as the engine does (flushIfDue
// after each, plus the 64 KiB trigger), and is killed mid-run. Whatever made it
// to disk must be whole lines, in order, with no gap; and no more is lost than the
// buffer holds (under 64 KiB: here ~70 lines of ~1 KB). Every other line goes through
// appendText, the engine's per-step path.
void TestRunDirectory::killNineLeavesWholeLines() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    const std::string events = dir + "/events.jsonl";
    // How many lines the child has handed to the writer, seen by the parent at the kill.
    auto* appended = static_cast<volatile int*>(
        ::mmap(nullptr, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    QVERIFY(appended != MAP_FAILED);
    *appended = 0;
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        try {
            RunWriter writer(dir, sampleConfig());
            const std::string payload(900, 'p');
            for (int step = 0; step < 1000; ++step) {
                json record = stepRecord(step);
                record["payload"] = payload;
                if (step % 2)
                    writer.appendText(record.dump());
                else
                    writer.append(record);
                *appended = step + 1;
                writer.flushIfDue();
                ::usleep(1000);
            }
            for (;;) {
                ::pause();  // still "running" when the kill comes
            }
        } catch (...) {
            ::_exit(3);
        }
    }
    // Kill it somewhere in the middle: once a few hundred lines are on disk.
    QElapsedTimer waited;
    waited.start();
    struct stat info {};
    while (waited.elapsed() < 20000) {
        if (::stat(events.c_str(), &info) == 0 && info.st_size > 300 * 1000) {
            break;
        }
        ::usleep(2000);
    }
    QCOMPARE(::kill(child, SIGKILL), 0);
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    const int handedOver = *appended;
    ::munmap(const_cast<int*>(appended), sizeof(int));
    QVERIFY(WIFSIGNALED(status));
    QCOMPARE(WTERMSIG(status), SIGKILL);

    const RunData run = readRunDirectory(dir);
    const int onDisk = static_cast<int>(run.events.size()) - 1;  // run_start is not a step
    const int lineBytes = static_cast<int>(run.events.back().dump().size()) + 1;
    // The buffer is written once it reaches kFlushBytes: what a kill can lose is less.
    const int bufferLines = static_cast<int>(RunWriter::kFlushBytes) / lineBytes + 1;
    QVERIFY2(handedOver - onDisk <= bufferLines,
             qPrintable(QStringLiteral("%1 lines handed over, %2 on disk, buffer %3 lines")
                            .arg(handedOver)
                            .arg(onDisk)
                            .arg(bufferLines)));
    QCOMPARE(run.skipped_lines, 0);
    for (const auto& warning : run.warnings) {
        QVERIFY2(warning.find("torn last line") != std::string::npos, warning.c_str());
    }
    QVERIFY(!run.complete);
    QVERIFY(!run.summary.has_value());
    QVERIFY(run.events.size() > 100);
    QCOMPARE(run.events[0]["type"], "run_start");
    QVERIFY(stepsAreConsecutive(run.events, 1));
    for (std::size_t i = 1; i < run.events.size(); ++i) {
        QCOMPARE(run.events[i]["payload"].get<std::string>().size(), std::size_t(900));
    }
}

// The streamed reader hands over exactly what the whole read loads, with the same
// warnings, across chunk boundaries (a line longer than a chunk included), and in
// batches of any size.
void TestRunDirectory::streamedReadMatchesWholeRead() {
    QTemporaryDir tmp;
    std::string events = runStartLine();
    for (int step = 0; step < 3000; ++step) {
        events += stepLine(step);
        if (step == 5) events += "not json at all\n";
        if (step == 7) events += R"({"type":"from_the_future","x":1})" "\n";
        if (step == 9) events += "\n   \n";
        if (step == 1500) {
            json big = stepRecord(-1);
            big["type"] = "fault";
            big["payload"] = std::string(ampscope::kRunReadChunkBytes + 12345, 'b');
            events += big.dump() + "\n";
        }
    }
    events += R"({"type":"step","step":)";  // torn
    const std::string dir = makeRunDir(tmp, events);
    writeFile(dir + "/summary.json", "[1, 2]");  // not an object: incomplete, with a warning

    const RunData whole = readRunDirectory(dir);
    QCOMPARE(whole.events.size(), std::size_t(1 + 3000 + 1));
    QVERIFY(whole.torn_last_line);
    QCOMPARE(whole.skipped_lines, 1);
    QCOMPARE(whole.skipped_unknown_records, 1);
    QVERIFY(anyContains(whole.warnings, "summary.json"));
    for (const std::size_t batchSize : {std::size_t(1), std::size_t(7), std::size_t(100000)}) {
        RunRecordReader reader(dir);
        QCOMPARE(reader.totalBytes(), static_cast<std::int64_t>(events.size()));
        std::vector<json> streamed;
        std::size_t batches = 0;
        std::vector<json> batch;
        while (reader.read(batch, batchSize)) {
            QVERIFY(batch.size() <= batchSize);
            ++batches;
            for (auto& record : batch) streamed.push_back(std::move(record));
            batch.clear();
        }
        QVERIFY(reader.done());
        QVERIFY(!reader.read(batch, batchSize));
        QVERIFY(batch.empty());
        QCOMPARE(reader.bytesRead(), reader.totalBytes());
        QVERIFY(batches >= streamed.size() / batchSize);
        QCOMPARE(streamed, whole.events);
        const RunData& data = reader.data();
        QVERIFY(data.events.empty());
        QCOMPARE(data.warnings, whole.warnings);
        QCOMPARE(data.skipped_lines, whole.skipped_lines);
        QCOMPARE(data.skipped_unknown_records, whole.skipped_unknown_records);
        QCOMPARE(data.torn_last_line, whole.torn_last_line);
        QCOMPARE(data.complete, whole.complete);
        QCOMPARE(data.config, whole.config);
        QCOMPARE(data.events_schema_version, whole.events_schema_version);
    }
    std::size_t seen = 0;
    const RunData facts = ampscope::forEachRunRecord(dir, [&](json& record) {
        QCOMPARE(record, whole.events[seen]);
        ++seen;
    });
    QCOMPARE(seen, whole.events.size());
    QCOMPARE(facts.warnings, whole.warnings);
}

void TestRunDirectory::streamedReadRefusesLikeWholeRead() {
    QTemporaryDir tmp;
    const std::string missing = pathIn(tmp, "nowhere");
    QCOMPARE(inputErrorOf([&] { RunRecordReader reader(missing); }),
             inputErrorOf([&] { readRunDirectory(missing); }));
    QCOMPARE(inputErrorOf([&] { RunRecordReader reader(missing); }),
             missing + ": no such run directory");
    const std::string dir = makeRunDir(tmp, "", false);
    writeFile(dir + "/config.json", "{\"schema_version\": 99}");
    QCOMPARE(inputErrorOf([&] { RunRecordReader reader(dir); }),
             inputErrorOf([&] { readRunDirectory(dir); }));
    writeFile(dir + "/config.json", sampleConfig().dump());
    RunRecordReader reader(dir);  // no events.jsonl: loads, with the reader's warning
    std::vector<json> batch;
    QVERIFY(!reader.read(batch));
    QVERIFY(reader.done());
    QCOMPARE(reader.data().warnings, readRunDirectory(dir).warnings);
    QVERIFY(anyContains(reader.data().warnings, "events.jsonl: missing"));
}

void TestRunDirectory::appendTextWritesTheLineAsGiven() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    {
        RunWriter writer(dir, sampleConfig());
        const std::string text = stepRecord(0).dump();
        writer.appendText(text);
        writer.append(stepRecord(1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writer.appendText("{\"type\":\"step\"}\n{}"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writer.appendText("[1]"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writer.appendText(""));
        writer.close();
        QVERIFY_THROWS_EXCEPTION(std::logic_error, writer.appendText(text));
    }
    const std::string events = readFile(dir + "/events.jsonl");
    const std::string tail = stepRecord(0).dump() + "\n" + stepRecord(1).dump() + "\n";
    QCOMPARE(events.substr(events.size() - tail.size()), tail);
    const RunData run = readRunDirectory(dir);
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QVERIFY(stepsAreConsecutive(run.events, 1));
}

// The follower meets a run directory's events.jsonl that is a symbolic link (which
// could lead to any file): refused with one line, nothing read through it.
void TestRunDirectory::followerRefusesALinkedEventsFile() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
    const std::string outside = pathIn(tmp, "elsewhere.jsonl");
    std::ofstream(outside) << "{\"type\":\"run_start\",\"schema_version\":1}\n";
    QCOMPARE(::symlink(outside.c_str(), (dir + "/events.jsonl").c_str()), 0);
    RunFollower follower(dir);
    try {
        follower.poll();
        QFAIL("the follower read through a symbolic link");
    } catch (const InputError& error) {
        QCOMPARE(std::string(error.what()),
                 dir + "/events.jsonl: is a symbolic link; a run directory's files must be plain "
                       "files inside it");
    }
}

void TestRunDirectory::extraFilesAreReadOnlyWhenPlainAndInside() {
    QTemporaryDir tmp;
    const std::string dir = pathIn(tmp, "run");
    QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
    QVERIFY(!ampscope::readRunDirectoryFile(dir, "narrative.md").has_value());  // absent
    std::ofstream(dir + "/narrative.md") << "# Lesson\n";
    QCOMPARE(ampscope::readRunDirectoryFile(dir, "narrative.md").value_or(""), std::string("# Lesson\n"));
    // A name is never a path: the caller's bug, not the run's.
    for (const char* name : {"../secret", "sub/file", "..", ".", ""})
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ampscope::readRunDirectoryFile(dir, name));
    const std::string outside = pathIn(tmp, "secret.md");
    std::ofstream(outside) << "not the run's\n";
    QCOMPARE(::unlink((dir + "/narrative.md").c_str()), 0);
    QCOMPARE(::symlink(outside.c_str(), (dir + "/narrative.md").c_str()), 0);
    QVERIFY_THROWS_EXCEPTION(InputError, ampscope::readRunDirectoryFile(dir, "narrative.md"));
    // A FIFO would block a reader that waits for its writer: refused, not opened for good.
    QCOMPARE(::unlink((dir + "/narrative.md").c_str()), 0);
    QCOMPARE(::mkfifo((dir + "/narrative.md").c_str(), 0644), 0);
    try {
        (void)ampscope::readRunDirectoryFile(dir, "narrative.md");
        QFAIL("a FIFO was read");
    } catch (const InputError& error) {
        QVERIFY2(std::string(error.what()).find("is not a plain file") != std::string::npos, error.what());
    }
}

// python/ampscope writes RUN/rank-N under torch.distributed: listed in rank order (2
// before 10), only directories named rank-<digits> that hold a config.json, no links.
void TestRunDirectory::rankDirectoriesOfARecordedRun() {
    QTemporaryDir tmp;
    const std::string run = pathIn(tmp, "recorded");
    for (const char* name : {"rank-10", "rank-2", "rank-0", "rank-x", "rank-", "other", "rank-3"}) {
        QVERIFY(QDir().mkpath(QString::fromStdString(run + "/" + name)));
        if (std::string(name) != "rank-3")  // rank-3 has not started: no config.json yet
            std::ofstream(run + "/" + name + "/config.json") << "{\"schema_version\": 1}\n";
    }
    QCOMPARE(::symlink((run + "/rank-0").c_str(), (run + "/rank-7").c_str()), 0);
    const std::vector<std::string> expected{run + "/rank-0", run + "/rank-2", run + "/rank-10"};
    QCOMPARE(ampscope::rankRunDirectories(run), expected);
    QVERIFY(ampscope::rankRunDirectories(run + "/rank-0").empty());  // a run, not a group
    QVERIFY(ampscope::rankRunDirectories(pathIn(tmp, "missing")).empty());
}

// A folder opened as a set: a job's ranks, a run itself, or a scenario's output folder
// (DIR/<run-name>/) in the order its runs started, whatever their names' order.
void TestRunDirectory::runSetOfAFolder() {
    QTemporaryDir tmp;
    const std::string scenario = pathIn(tmp, "scenario");
    // "no-scaler" started before "dynamic-scaler" (alphabetically the other way round);
    // "b" and "a" started in the same second: config.json's write time orders them.
    const auto writeRun = [&](const std::string& name, const std::string& time) {
        const std::string dir = scenario + "/" + name;
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        std::ofstream(dir + "/config.json") << "{\"schema_version\": 1}\n";
        std::ofstream(dir + "/events.jsonl")
            << json{{"type", "run_start"}, {"time", time}}.dump() << "\n";
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    };
    writeRun("no-scaler", "2024-05-01T10:00:00Z");
    writeRun("dynamic-scaler", "2024-05-01T10:00:07Z");
    writeRun("b", "2024-05-01T10:00:09Z");
    writeRun("a", "2024-05-01T10:00:09Z");
    QVERIFY(QDir().mkpath(QString::fromStdString(scenario + "/not-a-run")));
    std::ofstream(scenario + "/comparison.txt") << "run  status\n";
    const std::vector<std::string> expected{scenario + "/no-scaler", scenario + "/dynamic-scaler",
                                            scenario + "/b", scenario + "/a"};
    QCOMPARE(ampscope::runSetDirectories(scenario), expected);
    // A run is a set of one; a job folder is its ranks.
    QCOMPARE(ampscope::runSetDirectories(scenario + "/a"), std::vector<std::string>{scenario + "/a"});
    const std::string job = pathIn(tmp, "job");
    for (const char* rank : {"rank-1", "rank-0"}) {
        QVERIFY(QDir().mkpath(QString::fromStdString(job + "/" + rank)));
        std::ofstream(job + "/" + rank + "/config.json") << "{}\n";
    }
    QCOMPARE(ampscope::runSetDirectories(job), (std::vector<std::string>{job + "/rank-0", job + "/rank-1"}));
    QVERIFY(ampscope::runSetDirectories(scenario + "/not-a-run").empty());
    QVERIFY(ampscope::runSetDirectories(pathIn(tmp, "missing")).empty());
}

QTEST_APPLESS_MAIN(TestRunDirectory)
#include "test_run_directory.moc"
