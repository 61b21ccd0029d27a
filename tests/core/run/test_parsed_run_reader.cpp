// ParsedRunReader (a run directory parsed on a worker thread, batches handed over in
// order): the same records in the same order as RunRecordReader gives, whatever the batch
// size, the same warnings (a torn last line included), the same refusals, a reader
// started later reads nothing until then, and a reader dropped half way stops without
// hanging.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "RunSupport.h"
#include "common/InputError.h"
#include "run/ParsedRunReader.h"
#include "run/RunReader.h"
#include "run/StepRecordCodec.h"

using namespace ampscope;
using nlohmann::json;

namespace {

// A parsed record as JSON, the typed ones re-encoded, to compare with the JSON path's.
json asJson(const ParsedRecord& record) {
    if (const auto* step = std::get_if<StepMetrics>(&record)) return stepRecord(*step);
    if (const auto* histogram = std::get_if<HistogramRecord>(&record)) return toJson(*histogram);
    if (const auto* underflow = std::get_if<UnderflowRecord>(&record)) return toJson(*underflow);
    return std::get<json>(record);
}

// The JSON path's records, the step, histogram and underflow ones re-encoded the same way.
std::vector<json> readAsJson(const std::string& dir, RunData& data) {
    std::vector<json> out;
    data = forEachRunRecord(dir, [&](json& record) {
        const std::string type = record.value("type", std::string());
        if (type == "step")
            out.push_back(stepRecord(*stepFromJson(record)));
        else if (type == "histogram")
            out.push_back(toJson(histogramRecordFromJson(record)));
        else if (type == "underflow")
            out.push_back(toJson(underflowRecordFromJson(record)));
        else
            out.push_back(record);
    });
    return out;
}

// Every record the reader has left, as JSON, in order.
std::vector<json> drain(ParsedRunReader& reader) {
    std::vector<json> parsed;
    std::vector<ParsedRecord> records;
    while (reader.next(records))
        for (const ParsedRecord& r : records) parsed.push_back(asJson(r));
    return parsed;
}

std::vector<json> readParsed(const std::string& dir, std::size_t batch, RunData& data, int& batches,
                             bool& allBytesRead) {
    ParsedRunReader reader(dir, batch);
    std::vector<json> out;
    std::vector<ParsedRecord> records;
    batches = 0;
    while (reader.next(records)) {
        ++batches;
        if (records.size() > batch) return {};
        for (const ParsedRecord& r : records) out.push_back(asJson(r));
    }
    allBytesRead = reader.bytesRead() == reader.totalBytes();
    data = reader.data();
    return out;
}

}  // namespace

class TestParsedRunReader : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string run_, torn_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        RunConfig config = test::spiralsMlp("fp16");
        config.faults.push_back({5, "nan_grad", "fc2", 1.0});
        run_ = tmp_.filePath("run").toStdString();
        QVERIFY(test::runAndRead(config, tmp_, "run").complete);
        torn_ = tmp_.filePath("torn").toStdString();
        QVERIFY(QDir().mkpath(QString::fromStdString(torn_)));
        QVERIFY(QFile::copy(QString::fromStdString(run_ + "/config.json"), QString::fromStdString(torn_ + "/config.json")));
        QFile in(QString::fromStdString(run_ + "/events.jsonl"));
        QFile out(QString::fromStdString(torn_ + "/events.jsonl"));
        QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
        const QByteArray events = in.readAll();
        out.write(events.left(events.size() * 2 / 3 + 11));  // no summary, a torn last line
    }

    void theSameRecordsInOrderWhateverTheBatch_data() {
        QTest::addColumn<bool>("torn");
        QTest::addColumn<int>("batch");
        for (const bool torn : {false, true})
            for (const int batch : {1, 7, 16384})
                QTest::addRow("%s, batches of %d", torn ? "torn" : "complete", batch) << torn << batch;
    }
    void theSameRecordsInOrderWhateverTheBatch() {
        QFETCH(bool, torn);
        QFETCH(int, batch);
        const std::string dir = torn ? torn_ : run_;
        RunData expectedData, parsedData;
        const std::vector<json> expected = readAsJson(dir, expectedData);
        int batches = 0;
        bool allBytesRead = false;
        const std::vector<json> parsed =
            readParsed(dir, static_cast<std::size_t>(batch), parsedData, batches, allBytesRead);
        QVERIFY(allBytesRead);
        QVERIFY(expected.size() > 40);
        QCOMPARE(parsed.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            QVERIFY2(parsed[i] == expected[i], qPrintable(QString::fromStdString(parsed[i].dump())));
        QCOMPARE(batches, static_cast<int>((expected.size() + static_cast<std::size_t>(batch) - 1) /
                                           static_cast<std::size_t>(batch)));
        QCOMPARE(parsedData.warnings, expectedData.warnings);
        QCOMPARE(parsedData.torn_last_line, torn);
        QCOMPARE(parsedData.complete, !torn);
    }

    // A type the consumer reads none of is passed over unparsed; the rest is as before.
    void skippedTypesAreLeftOut() {
        RunData expectedData;
        std::vector<json> expected = readAsJson(run_, expectedData);
        const auto skipped = std::remove_if(expected.begin(), expected.end(),
                                            [](const json& r) { return r.value("type", "") == "op_dtypes"; });
        QVERIFY(skipped != expected.end());  // the run has some
        expected.erase(skipped, expected.end());
        ParsedRunReader reader(run_, 16384, {"op_dtypes"});
        const std::vector<json> parsed = drain(reader);
        QCOMPARE(parsed.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) QVERIFY(parsed[i] == expected[i]);
        QCOMPARE(reader.data().warnings, expectedData.warnings);
    }

    void refusesWhatTheReaderRefuses() {
        try {
            ParsedRunReader reader(tmp_.filePath("nothing-here").toStdString());
            QFAIL("a missing directory was opened");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).endsWith("no such run directory"), e.what());
        }
    }

    // A batch size of 0 is taken as 1: every record still comes, one a batch.
    void aBatchOfZeroIsABatchOfOne() {
        RunData expectedData, parsedData;
        const std::vector<json> expected = readAsJson(run_, expectedData);
        ParsedRunReader reader(run_, 0);
        std::vector<ParsedRecord> records;
        std::size_t count = 0;
        while (reader.next(records)) {
            QCOMPARE(records.size(), std::size_t{1});
            QVERIFY(asJson(records[0]) == expected[count]);
            ++count;
        }
        QCOMPARE(count, expected.size());
    }

    // Hand-written lines the engine never writes: one shorter than a skipped type's line
    // ending, and a run whose first record is not run_start. The reader gives what the
    // JSON path gives: the same records and the same warnings, and no exception.
    void handWrittenLinesReadAsTheJsonPathReadsThem() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("hand").toStdString();
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        QVERIFY(QFile::copy(QString::fromStdString(run_ + "/config.json"), QString::fromStdString(dir + "/config.json")));
        QFile events(QString::fromStdString(dir + "/events.jsonl"));
        QVERIFY(events.open(QIODevice::WriteOnly));
        // The first record a step (no run_start): the reader warns about it; then "{}", too
        // short to end in "type":"op_dtypes"} and not a record either.
        events.write(R"({"epoch":0,"loss":0.5,"step":0,"type":"step"})"
                     "\n{}\n"
                     R"({"epoch":0,"loss":0.25,"step":1,"type":"step"})"
                     "\n");
        events.close();
        RunData expectedData;
        const std::vector<json> expected = readAsJson(dir, expectedData);
        QCOMPARE(expected.size(), std::size_t{2});
        QCOMPARE(expectedData.warnings.size(), std::size_t{2});
        QVERIFY(QString::fromStdString(expectedData.warnings[0]).contains("line 2: skipped an unreadable line"));
        QVERIFY(QString::fromStdString(expectedData.warnings[1]).contains("the first record is not run_start"));
        ParsedRunReader reader(dir, 16384, {"op_dtypes"});
        const std::vector<json> parsed = drain(reader);
        QCOMPARE(parsed.size(), expected.size());
        // A step record may come typed or as JSON (the first line is read as JSON):
        // re-encoded either way, to compare with the JSON path's.
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const json& p = parsed[i];
            QVERIFY((p.contains("grad_norm") ? p : stepRecord(*stepFromJson(p))) == expected[i]);
        }
        QCOMPARE(reader.data().warnings, expectedData.warnings);
        QVERIFY(reader.data().any_record);
    }

    // Start::Later: opened (its start data read) but nothing of events.jsonl read until
    // start() or the first next(); then the same records in order. One never started is
    // dropped without waiting for anything.
    void startedLaterReadsTheSameRecordsOnlyOnceStarted() {
        RunData expectedData;
        const std::vector<json> expected = readAsJson(run_, expectedData);
        {
            ParsedRunReader never(run_, 7, {}, ParsedRunReader::Start::Later);
            QVERIFY(never.startData().complete);
        }
        ParsedRunReader reader(run_, 7, {}, ParsedRunReader::Start::Later);
        QTest::qWait(100);  // a worker started at once reads the whole run meanwhile
        QCOMPARE(reader.bytesRead(), std::int64_t{0});
        const std::vector<json> parsed = drain(reader);
        QCOMPARE(parsed.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) QVERIFY(parsed[i] == expected[i]);
        QCOMPARE(reader.bytesRead(), reader.totalBytes());
    }

    // Dropped after one batch of a full queue: the worker stops, the destructor returns.
    void droppedHalfWayItStops() {
        for (int i = 0; i < 20; ++i) {
            ParsedRunReader reader(run_, 3);
            std::vector<ParsedRecord> records;
            QVERIFY(reader.next(records));
            QCOMPARE(records.size(), std::size_t{3});
            QVERIFY(reader.startData().complete);
        }
    }
};

QTEST_GUILESS_MAIN(TestParsedRunReader)
#include "test_parsed_run_reader.moc"
