// The text path of the common records (run/FlatRecordText.h) against the JSON path: what
// the engine writes, line by line and field for field (doubles compared bit for bit), a
// run read both ways through the reader (a torn last line included), and hand-made lines
// at the edges (NaN/Inf tags, numbers JSON reads otherwise, escapes, order, nesting):
// each either reads exactly as the JSON reader reads it, or is left to the JSON path.
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <bit>
#include <nlohmann/json.hpp>
#include <set>

#include "ExactCompare.h"
#include "RunSupport.h"
#include "probes/ProbeRecords.h"
#include "run/FlatRecordText.h"
#include "run/RunReader.h"
#include "run/StepRecordCodec.h"

using namespace ampscope;
using nlohmann::json;

namespace {

bool sameBits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

// Every field of two steps, doubles bit for bit.
QString stepDifference(const StepMetrics& a, const StepMetrics& b) {
    const std::pair<const char*, std::pair<double, double>> numbers[] = {
        {"loss", {a.loss, b.loss}},
        {"lr", {a.lr, b.lr}},
        {"grad_norm", {a.gradNorm, b.gradNorm}},
        {"grad_norm_clipped", {a.gradNormClipped, b.gradNormClipped}},
        {"step_seconds", {a.stepSeconds, b.stepSeconds}},
        {"samples_per_second", {a.samplesPerSecond, b.samplesPerSecond}},
        {"scale", {a.scale, b.scale}},
        {"scale_after", {a.scaleAfter, b.scaleAfter}}};
    for (const auto& [name, values] : numbers)
        if (!sameBits(values.first, values.second)) return QString::fromLatin1(name);
    if (a.step != b.step || a.epoch != b.epoch || a.growthTracker != b.growthTracker) return "integers";
    if (a.foundInf != b.foundInf || a.stepSkipped != b.stepSkipped) return "booleans";
    if (a.scaleChange != b.scaleChange || a.firstNonFiniteLayer != b.firstNonFiniteLayer) return "strings";
    return {};
}

QString underflowDifference(const UnderflowRecord& a, const UnderflowRecord& b) {
    if (a.step != b.step || a.layer != b.layer || a.kind != b.kind) return "identity";
    if (!sameBits(a.multiplier, b.multiplier)) return "multiplier";
    const auto& x = a.counts;
    const auto& y = b.counts;
    if (x.zero != y.zero || x.flushed != y.flushed || x.subnormal != y.subnormal || x.normal != y.normal ||
        x.overflow != y.overflow || x.nan != y.nan || x.inf != y.inf || x.exact != y.exact)
        return "counts";
    return {};
}

QString histogramDifference(const HistogramRecord& a, const HistogramRecord& b) {
    if (a.step != b.step || a.layer != b.layer || a.kind != b.kind) return "identity";
    if (!(a.histogram == b.histogram)) return "bins";
    return {};
}

enum class Outcome { Text, Json, Refused };

// Reads one line both ways. Text: the text path read it, exactly as JSON did (else a
// failure is recorded). Json: the text path left it to JSON. Refused: neither reads it
// (the text path must then have refused too).
Outcome readBothWays(const std::string& line, QString& failure) {
    const json parsed = json::parse(line, nullptr, false);
    record_text::FlatLine flat;
    const bool split = flat.split(line);
    if (parsed.is_discarded()) {
        if (split) failure = "the text path split a line JSON refuses";
        return Outcome::Refused;
    }
    if (!split) return Outcome::Json;
    const std::string type = parsed.is_object() ? parsed.value("type", std::string()) : std::string();
    if (type == "step") {
        // The one-pass reader of the engine's usual line first, then the split line's.
        StepMetrics text;
        const bool read = parseStepRecordText(line, text);
        const auto viaJson = stepFromJson(parsed);
        if (!read) return viaJson ? Outcome::Json : Outcome::Refused;
        if (!viaJson) failure = "text read a step the JSON path finds unusable";
        else failure = stepDifference(text, *viaJson);
        return Outcome::Text;
    }
    const auto compare = [&](auto fromText, auto fromJson, auto difference) {
        decltype(fromJson(parsed)) text;
        const bool read = fromText(flat, text);
        try {
            const auto viaJson = fromJson(parsed);
            if (!read) return Outcome::Json;
            failure = difference(text, viaJson);
            return Outcome::Text;
        } catch (const RecordError&) {
            if (read) failure = "text read a record the JSON path refuses";
            return read ? Outcome::Text : Outcome::Refused;
        }
    };
    if (type == "histogram") return compare(histogramRecordFromText, histogramRecordFromJson, histogramDifference);
    if (type == "underflow") return compare(underflowRecordFromText, underflowRecordFromJson, underflowDifference);
    return Outcome::Json;
}

// Every value of a split line against the parsed JSON's value under the same key.
QString splitDifference(const std::string& line) {
    const json parsed = json::parse(line);
    record_text::FlatLine flat;
    if (!flat.split(line)) return {};
    for (const auto& [key, value] : parsed.items()) {
        const record_text::FlatLine::Value* v = flat.find(key);
        if (!v) return QString::fromStdString("missing " + key);
        using Kind = record_text::FlatLine::Kind;
        if (value.is_number_integer()) {
            const auto i = record_text::integerOf(*v);
            if (!i || *i != value.get<int64_t>()) return QString::fromStdString(key);
        } else if (value.is_number_float()) {
            const auto d = record_text::doubleOf(*v);
            if (!d || !sameBits(*d, value.get<double>())) return QString::fromStdString(key);
        } else if (value.is_string()) {
            if (v->kind != Kind::String || v->text != value.get<std::string>()) return QString::fromStdString(key);
        } else if (value.is_boolean()) {
            if (v->kind != (value.get<bool>() ? Kind::True : Kind::False)) return QString::fromStdString(key);
        } else if (value.is_null()) {
            if (v->kind != Kind::Null) return QString::fromStdString(key);
        } else if (value.is_array()) {
            record_text::NumberList list;
            if (v->kind != Kind::Array || !list.read(v->text) || list.size() != value.size())
                return QString::fromStdString(key);
            for (std::size_t i = 0; i < list.size(); ++i)
                if (!sameBits(list[i].get<double>(), value[i].get<double>()) ||
                    list[i].is_number_integer() != value[i].is_number_integer())
                    return QString::fromStdString(key + " item");
        }
    }
    return {};
}

// Two JSON values alike in every value and in every number's type (signed, unsigned,
// double: what a reader asking is_number_unsigned() would see).
bool sameJson(const json& a, const json& b) {
    if (a.type() != b.type()) return false;
    if (a.is_object()) {
        if (a.size() != b.size()) return false;
        for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
            if (it.key() != jt.key() || !sameJson(*it, *jt)) return false;
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!sameJson(a[i], b[i])) return false;
        return true;
    }
    if (a.is_number_float()) return sameBits(a.get<double>(), b.get<double>());
    return a == b;
}

// The JSON a split line builds is the parser's, or none (the parser's way).
QString builtJsonDifference(const std::string& line) {
    record_text::FlatLine flat;
    json built;
    if (!flat.split(line) || !record_text::toJson(flat, built)) return {};
    const json parsed = json::parse(line, nullptr, false);
    if (parsed.is_discarded()) return "built JSON from a line the parser refuses";
    return sameJson(built, parsed) ? QString() : QString::fromStdString("built " + built.dump());
}

std::vector<std::string> linesOf(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    std::vector<std::string> lines;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.isEmpty()) lines.push_back(line.toStdString());
    return lines;
}

// A run's records as the JSON path decodes them, or as the text path does where it can:
// (type, the record re-encoded from its decoded value).
std::vector<std::pair<std::string, json>> readRun(const std::string& dir, bool text, RunData& data) {
    std::vector<std::pair<std::string, json>> out;
    const auto canonical = [](const json& record) -> json {
        const std::string type = record.value("type", std::string());
        if (type == "step") return stepRecord(*stepFromJson(record));
        if (type == "histogram") return toJson(histogramRecordFromJson(record));
        if (type == "underflow") return toJson(underflowRecordFromJson(record));
        return record;
    };
    const auto taker = [&](std::string_view line) {
        record_text::FlatLine flat;
        if (!flat.split(line)) return false;
        const std::string type(flat.type());
        StepMetrics m;
        HistogramRecord h;
        UnderflowRecord u;
        if (type == "step" && parseStepRecordText(flat, m)) out.emplace_back(type, stepRecord(m));
        else if (type == "histogram" && histogramRecordFromText(flat, h)) out.emplace_back(type, toJson(h));
        else if (type == "underflow" && underflowRecordFromText(flat, u)) out.emplace_back(type, toJson(u));
        else return false;
        return true;
    };
    data = forEachRunRecord(
        dir, [&](json& record) { out.emplace_back(record.value("type", std::string()), canonical(record)); },
        text ? RunRecordReader::LineTaker(taker) : RunRecordReader::LineTaker());
    return out;
}

}  // namespace

class TestFlatRecordText : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string run_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        // fp16 with the dynamic scaler (scale records and tags on the steps), probes every
        // 2, a sweep every 4, and a NaN injected into fc2's gradient at step 5 (nonfinite,
        // a backoff naming the layer, NaN tags).
        RunConfig config = test::spiralsMlp("fp16");
        config.probes.format_sweep_every = 4;
        config.faults.push_back({5, "nan_grad", "fc2", 1.0});
        run_ = tmp_.filePath("run").toStdString();
        const RunData run = test::runAndRead(config, tmp_, "run");
        QVERIFY(run.complete);
    }

    // Every line the engine wrote: the step, histogram and underflow lines are read by the
    // text path, field for field as JSON reads them; every line that splits holds the
    // same values as its JSON.
    void engineLinesReadAsJsonReadsThem() {
        std::set<std::string> types, byText;
        int lines = 0;
        for (const std::string& line : linesOf(QString::fromStdString(run_) + "/events.jsonl")) {
            ++lines;
            const std::string type = json::parse(line).value("type", std::string());
            types.insert(type);
            QString failure;
            const Outcome outcome = readBothWays(line, failure);
            QVERIFY2(failure.isEmpty(), qPrintable(failure + ": " + QString::fromStdString(line)));
            if (outcome == Outcome::Text) byText.insert(type);
            const QString split = splitDifference(line);
            QVERIFY2(split.isEmpty(), qPrintable(split + ": " + QString::fromStdString(line)));
            const QString built = builtJsonDifference(line);
            QVERIFY2(built.isEmpty(), qPrintable(built + ": " + QString::fromStdString(line)));
        }
        QVERIFY(lines > 50);
        QCOMPARE(byText, (std::set<std::string>{"step", "histogram", "underflow"}));
        for (const char* type : {"run_start", "run_info", "step", "epoch", "histogram", "underflow", "nonfinite",
                                 "update_ratio", "op_dtypes", "memory", "format_sweep", "run_end"})
            QVERIFY2(types.count(type), type);
    }

    // The reader with the text path and without it: the same records in the same order,
    // the same warnings; also with a torn last line (a histogram cut in its bins).
    void aRunReadsTheSameBothWays() {
        for (const bool torn : {false, true}) {
            std::string dir = run_;
            if (torn) {
                dir = tmp_.filePath("torn").toStdString();
                QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
                for (const char* name : {"config.json", "events.jsonl"})
                    QVERIFY(QFile::copy(QString::fromStdString(run_ + "/" + name),
                                        QString::fromStdString(dir + "/" + name)));
                QFile events(QString::fromStdString(dir + "/events.jsonl"));
                QVERIFY(events.open(QIODevice::Append));
                events.write("{\"above\":0,\"below\":0,\"counts\":[0,0,3");
            }
            RunData viaJson, viaText;
            const auto a = readRun(dir, false, viaJson);
            const auto b = readRun(dir, true, viaText);
            QCOMPARE(a.size(), b.size());
            for (std::size_t i = 0; i < a.size(); ++i)
                QVERIFY2(a[i] == b[i], qPrintable(QString::fromStdString(a[i].second.dump())));
            QCOMPARE(viaText.warnings, viaJson.warnings);
            QCOMPARE(viaText.torn_last_line, torn);
            QCOMPARE(viaJson.torn_last_line, torn);
        }
    }

    void edgesReadAsJsonOrGoTheJsonWay_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("expected");  // Outcome
        const int text = static_cast<int>(Outcome::Text), viaJson = static_cast<int>(Outcome::Json),
                  refused = static_cast<int>(Outcome::Refused);
        const QString step = R"({"loss":%1,"step":7,"type":"step"})";
        QTest::newRow("step, a number") << step.arg("0.25") << text;
        QTest::newRow("step, NaN tag") << R"({"loss":null,"loss_nonfinite":"nan","step":7,"type":"step"})" << text;
        QTest::newRow("step, +Inf tag") << R"({"loss":null,"loss_nonfinite":"inf","step":7,"type":"step"})" << text;
        QTest::newRow("step, -Inf tag") << R"({"loss":null,"loss_nonfinite":"-inf","step":7,"type":"step"})" << text;
        QTest::newRow("step, null without tag") << step.arg("null") << text;
        QTest::newRow("step, an integer loss") << step.arg("3") << text;
        QTest::newRow("step, minus zero") << step.arg("-0.0") << text;
        QTest::newRow("step, exponent") << step.arg("1.5e-300") << text;
        QTest::newRow("step, a string loss") << step.arg("\"x\"") << text;
        // Lenient: a value that is not a number reads by its tag (here +Inf), or as NaN
        // without one, never as the field's default (the clipped norm's is the norm).
        QTest::newRow("step, a string loss with its tag")
            << R"({"loss":"x","loss_nonfinite":"inf","step":7,"type":"step"})" << text;
        QTest::newRow("step, a string clipped norm")
            << R"({"grad_norm":2.0,"grad_norm_clipped":"x","step":7,"type":"step"})" << text;
        QTest::newRow("step, beyond double") << step.arg("1e400") << refused;
        QTest::newRow("step, below double") << step.arg("1e-400") << viaJson;
        QTest::newRow("step, an unsigned step")
            << R"({"step":9223372036854775808,"type":"step"})" << viaJson;
        QTest::newRow("step, largest int64 step") << R"({"step":9223372036854775807,"type":"step"})" << text;
        QTest::newRow("step, a float step") << R"({"step":7.0,"type":"step"})" << refused;
        QTest::newRow("step, no step") << R"({"loss":1.0,"type":"step"})" << refused;
        QTest::newRow("step, unknown keys") << R"({"a":[1,2.5],"step":7,"type":"step","zz":true})" << text;
        QTest::newRow("step, scale change") << R"({"scale_change":"growth","step":7,"type":"step"})" << text;
        QTest::newRow("step, odd scale change") << R"({"scale_change":"up","step":7,"type":"step"})" << text;
        QTest::newRow("step, escaped layer")
            << "{\"first_nonfinite_layer\":\"a\\\"b\",\"step\":7,\"type\":\"step\"}" << viaJson;
        QTest::newRow("step, unicode layer")
            << QString::fromUtf8("{\"first_nonfinite_layer\":\"bloc\xc3\xa9\",\"step\":7,\"type\":\"step\"}") << viaJson;
        QTest::newRow("step, whitespace") << R"({"step": 7,"type":"step"})" << viaJson;
        QTest::newRow("step, keys unsorted") << R"({"type":"step","step":7})" << viaJson;
        QTest::newRow("step, a key twice") << R"({"step":7,"step":8,"type":"step"})" << viaJson;
        QTest::newRow("step, nested") << R"({"step":7,"type":"step","x":{"a":1}})" << viaJson;
        QTest::newRow("step, trailing text") << R"({"step":7,"type":"step"}x)" << refused;
        QTest::newRow("step, leading zero") << R"({"step":07,"type":"step"})" << refused;
        const QString histogram =
            R"({"above":0,"below":0,"counts":%1,"kind":"param_grad","layer":"fc1","min_exponent":%2,)"
            R"("nan":1,"neg_inf":0,"pos_inf":2,"step":4,"type":"histogram","zero":3})";
        QTest::newRow("histogram") << histogram.arg("[0,5,0,7]", "-3") << text;
        QTest::newRow("histogram, bins folded below") << histogram.arg("[4,5,6]", "-66") << text;
        QTest::newRow("histogram, bins folded above") << histogram.arg("[4,5,6]", "31") << text;
        QTest::newRow("histogram, no bins") << histogram.arg("[]", "-64") << text;
        QTest::newRow("histogram, a float bin") << histogram.arg("[0,1.0]", "-64") << refused;
        QTest::newRow("histogram, counts not an array") << histogram.arg("3", "-64") << refused;
        QTest::newRow("histogram, a huge bin") << histogram.arg("[99999999999999999999]", "-64") << refused;
        // 19 digits past int64 (an unsigned to JSON): beyond what the text path reads exactly.
        QTest::newRow("histogram, a bin past int64") << histogram.arg("[9999999999999999999]", "-64") << viaJson;
        QTest::newRow("histogram, no zero") << R"({"above":0,"below":0,"counts":[],"kind":"k","layer":"l",)"
                                               R"("min_exponent":0,"nan":0,"neg_inf":0,"pos_inf":0,"step":4,"type":"histogram"})"
                                            << refused;
        const QString underflow =
            R"({"exact":%1,"flushed":2,"inf":0,"kind":"param_grad_scaled","layer":"fc2",%2"nan":0,)"
            R"("normal":30,"overflow":1,"step":8,"subnormal":3,"type":"underflow","zero":4})";
        QTest::newRow("underflow") << underflow.arg("true", "") << text;
        QTest::newRow("underflow, a multiplier") << underflow.arg("false", R"("multiplier":0.5,)") << text;
        QTest::newRow("underflow, an Inf multiplier")
            << underflow.arg("false", R"("multiplier":null,"multiplier_nonfinite":"inf",)") << text;
        QTest::newRow("underflow, exact as a number") << underflow.arg("1", "") << refused;
        const QString engine =
            R"({"epoch":%1,"found_inf":false,"grad_norm":0.19796565175056458,"grad_norm_clipped":0.19796565175056458,)"
            R"("growth_tracker":%2,"loss":%3,"lr":0.001,"samples_per_second":15645.11405532601,"scale":1.0,)"
            R"("scale_after":1.0,"step":12,"step_seconds":0.002045367,"step_skipped":false,"type":"step"})";
        QTest::newRow("engine step") << engine.arg("1", "0", "1.1084307432174683") << text;
        QTest::newRow("engine step, an integer loss") << engine.arg("1", "0", "2") << text;
        QTest::newRow("engine step, a float tracker") << engine.arg("1", "1.5", "2") << text;
        QTest::newRow("engine step, a float epoch") << engine.arg("1e0", "3", "2") << text;
        QTest::newRow("engine step, a null loss") << engine.arg("1", "3", "null") << text;
        QTest::newRow("engine step, beyond double") << engine.arg("1", "3", "1e999") << refused;
        QTest::newRow("engine step, trailing text") << engine.arg("1", "3", "2") + "x" << refused;
        QTest::newRow("step, minus zero integer") << R"({"epoch":-0,"step":7,"type":"step"})" << text;
        QTest::newRow("step, negative integers") << R"({"epoch":-3,"growth_tracker":-9223372036854775808,"step":7,"type":"step"})" << text;
        QTest::newRow("not a record") << "[1,2]" << viaJson;
        QTest::newRow("empty object") << "{}" << viaJson;
    }

    void edgesReadAsJsonOrGoTheJsonWay() {
        QFETCH(QString, line);
        QFETCH(int, expected);
        QString failure;
        const Outcome outcome = readBothWays(line.toStdString(), failure);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QCOMPARE(static_cast<int>(outcome), expected);
        if (outcome == Outcome::Text) QVERIFY(splitDifference(line.toStdString()).isEmpty());
        const QString built = builtJsonDifference(line.toStdString());
        QVERIFY2(built.isEmpty(), qPrintable(built));
    }
};

QTEST_GUILESS_MAIN(TestFlatRecordText)
#include "test_flat_record_text.moc"
