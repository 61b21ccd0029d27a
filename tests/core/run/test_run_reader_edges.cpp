// The run reader's edges that test_run_directory passed over (each a mutation of
// core/run/RunReader.cpp or EventLines.cpp survived there; see
// tests/tools/mutation-report-precision-run.md), on run directories written by hand, the
// expected warnings and counts worked out from the rules in core/run/RunReader.h.
#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "ExactCompare.h"
#include "config/RunConfig.h"
#include "run/RunReader.h"

using namespace ampscope;
using nlohmann::json;

namespace {

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

// A run directory whose config.json is valid and whose events.jsonl holds `events`.
std::string makeRunDir(const QTemporaryDir& tmp, const std::string& events) {
    const std::string dir = tmp.path().toStdString() + "/run";
    QDir().mkpath(QString::fromStdString(dir));
    writeFile(dir + "/config.json", json{{"schema_version", kConfigSchemaVersion}}.dump());
    writeFile(dir + "/events.jsonl", events);
    return dir;
}

const std::string kRunStart = R"({"type":"run_start","schema_version":1,"time":"2024-01-01T00:00:00Z"})"
                              "\n";
const std::string kStep = R"({"epoch":0,"loss":0.5,"step":0,"type":"step"})"
                          "\n";

std::string garbage(int lines) {
    std::string text;
    for (int i = 0; i < lines; ++i) text += "garbage\n";
    return text;
}

}  // namespace

class TestRunReaderEdges : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Up to kListedBadEventLines (10) bad lines are each named and no total follows; one
    // more adds the line saying more were not named, and the total.
    void tenBadLinesAreListedWithoutATotal() {
        QCOMPARE(kListedBadEventLines, 10);
        QTemporaryDir tmp;
        const RunData ten = readRunDirectory(makeRunDir(tmp, kRunStart + garbage(10) + kStep));
        QCOMPARE(ten.skipped_lines, 10);
        QCOMPARE(ten.warnings.size(), std::size_t{10});
        QCOMPARE(ten.warnings.back(), std::string("events.jsonl line 11: skipped an unreadable line (not JSON)"));

        QTemporaryDir tmp2;
        const RunData eleven = readRunDirectory(makeRunDir(tmp2, kRunStart + garbage(11) + kStep));
        QCOMPARE(eleven.warnings.size(), std::size_t{12});
        QCOMPARE(eleven.warnings[10],
                 std::string("events.jsonl: more unreadable lines; only the first 10 are listed"));
        QCOMPARE(eleven.warnings[11], std::string("events.jsonl: skipped 11 unreadable lines in all"));
    }

    // A file written with CRLF line ends: its empty lines are a lone '\r', blank like an
    // empty line (JSON counts '\r' as white space), so nothing is skipped or warned about.
    void crlfBlankLinesAreBlank() {
        QTemporaryDir tmp;
        const std::string events = R"({"type":"run_start","schema_version":1,"time":"2024-01-01T00:00:00Z"})"
                                   "\r\n\r\n\r\n" +
                                   kStep;
        const RunData run = readRunDirectory(makeRunDir(tmp, events));
        QCOMPARE(run.skipped_lines, 0);
        QVERIFY(run.warnings.empty());
        QCOMPARE(run.events.size(), std::size_t{2});
    }

    // Records of types this build does not know are records: a file of nothing else is a
    // run from a newer writer, not "no line of it is a record".
    void onlyUnknownRecordsStillCountAsRecords() {
        QTemporaryDir tmp;
        const RunData run = readRunDirectory(makeRunDir(tmp, R"({"type":"hologram","x":1})"
                                                             "\n"));
        QCOMPARE(run.skipped_unknown_records, 1);
        QVERIFY(run.events.empty());
        QVERIFY(run.any_record);
        QCOMPARE(noRecordText("run", run.any_record, run.skipped_lines), std::string());
    }

    // noRecordText speaks only when there were unreadable lines and no record.
    void noRecordTextOnlyForLinesThatAreNotRecords() {
        QCOMPARE(noRecordText("d", false, 0), std::string());  // empty: not started, not broken
        QCOMPARE(noRecordText("d", true, 3), std::string());
        QCOMPARE(noRecordText("d", false, 1),
                 std::string("d/events.jsonl: no line of it is a record (1 unreadable line): "
                             "not an AmpScope run's events, nothing to show"));
        QCOMPARE(noRecordText("d", false, 2),
                 std::string("d/events.jsonl: no line of it is a record (2 unreadable lines): "
                             "not an AmpScope run's events, nothing to show"));
    }
};

QTEST_GUILESS_MAIN(TestRunReaderEdges)
#include "test_run_reader_edges.moc"
