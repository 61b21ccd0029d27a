// The probe records of events.jsonl: each one survives a JSON round trip
// (non-finite numbers as null plus a tag), parses from the documented field
// names, tolerates another histogram range, and a malformed record names the
// record type and the field.
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/PrecisionMapRecord.h"
#include "probes/ProbeRecords.h"

using namespace ampscope;
using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TensorStats someStats(double base) {
    TensorStats s;
    s.min = -base;
    s.max = 2 * base;
    s.mean = base / 3;
    s.absMax = 2 * base;
    s.nan = 1;
    s.posInf = 2;
    s.negInf = 3;
    s.numel = 100;
    return s;
}

// Through text, as the run directory stores it.
json throughText(const json& j) {
    return json::parse(j.dump());
}

}  // namespace

class ProbeRecordsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void histogramRoundTrip() {
        HistogramRecord r;
        r.step = 12;
        r.layer = "conv2";
        r.kind = std::string(probe_kind::kParamGrad);
        for (size_t i = 0; i < r.histogram.counts.size(); ++i)
            r.histogram.counts[i] = int64_t(i * 3);
        r.histogram.below = 1;
        r.histogram.above = 2;
        r.histogram.zero = 3;
        r.histogram.nan = 4;
        r.histogram.posInf = 5;
        r.histogram.negInf = 6;
        const json j = throughText(toJson(r));
        QCOMPARE(j.at("type").get<std::string>(), std::string("histogram"));
        QCOMPARE(j.at("min_exponent").get<int>(), -64);
        QCOMPARE(j.at("counts").size(), size_t(97));
        QCOMPARE(j.at("pos_inf").get<int64_t>(), int64_t(5));
        const auto back = histogramRecordFromJson(j);
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.layer, r.layer);
        QCOMPARE(back.kind, r.kind);
        QVERIFY(back.histogram == r.histogram);
    }

    void histogramFromAnotherRangeFoldsIntoBelowAndAbove() {
        // A writer whose five bins start at 2^-66: its two lowest lie below our range.
        const json j = {{"type", "histogram"}, {"step", 1},
                        {"layer", "fc"},       {"kind", "activation_grad"},
                        {"min_exponent", -66}, {"counts", {1, 2, 3, 4, 5}},
                        {"below", 10},         {"above", 0},
                        {"zero", 0},           {"nan", 0},
                        {"pos_inf", 0},        {"neg_inf", 0}};
        const auto h = histogramRecordFromJson(j).histogram;
        QCOMPARE(h.below, int64_t(10 + 1 + 2));  // 2^-66, 2^-65 are below our range
        QCOMPARE(h.countAt(-64), int64_t(3));
        QCOMPARE(h.countAt(-62), int64_t(5));
    }

    void underflowRoundTrip() {
        UnderflowRecord r;
        r.step = 40;
        r.layer = "fc";
        r.kind = std::string(probe_kind::kParamGradScaled);
        r.multiplier = 32768.0;
        r.counts = {1, 2, 3, 4, 5, 6, 7, false};
        const json j = throughText(toJson(r));
        QCOMPARE(j.at("flushed").get<int64_t>(), int64_t(2));
        QCOMPARE(j.at("exact").get<bool>(), false);
        const auto back = underflowRecordFromJson(j);
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.layer, r.layer);
        QCOMPARE(back.kind, r.kind);
        QCOMPARE_BITS(back.multiplier, r.multiplier);
        QVERIFY(back.counts == r.counts);
        // The multiplier is optional on read (1: the values as they are).
        json plain = j;
        plain.erase("multiplier");
        QCOMPARE_BITS(underflowRecordFromJson(plain).multiplier, 1.0);
    }

    void nonFiniteRoundTripWithFrames() {
        NonFiniteRecord r;
        r.event = {9, "conv2", 3, "backward", "gradient", 5, 1, 0, 73728};
        StatsFrame f;
        f.step = 8;
        f.loss = someStats(0.5);
        LayerFrame conv;
        conv.layer = "conv2";
        conv.layerIndex = 3;
        conv.activation = someStats(1.0);
        TensorStats allNaN;
        allNaN.min = allNaN.max = allNaN.mean = allNaN.absMax = kNaN;
        allNaN.nan = allNaN.numel = 4;
        conv.gradient = allNaN;
        LayerFrame pool;  // no gradient reached it
        pool.layer = "pool2";
        pool.layerIndex = 4;
        pool.activation = someStats(2.0);
        f.layers = {conv, pool};
        r.frames = {f};
        const json j = throughText(toJson(r));
        QCOMPARE(j.at("phase").get<std::string>(), std::string("backward"));
        QVERIFY(j.at("frames")[0].at("layers")[0].at("gradient").at("min").is_null());
        const auto back = nonFiniteRecordFromJson(j);
        QVERIFY(back.event == r.event);
        QCOMPARE(j.at("located_by").get<std::string>(), std::string("check"));
        // Found by a replay after another step's replay missed: both survive the trip.
        NonFiniteRecord replayed = r;
        replayed.event.locatedBy = std::string(nonfinite_located_by::kReplay);
        replayed.event.replayMissedStep = 7;
        QVERIFY(nonFiniteRecordFromJson(throughText(toJson(replayed))).event == replayed.event);
        // A recorded rank that received it through the gradient all-reduce; others leave the
        // field out.
        QVERIFY(!j.contains("via"));
        NonFiniteRecord received = r;
        received.event.tensor = std::string(nonfinite_tensor::kParamGrad);
        received.event.via = std::string(nonfinite_via::kGradientAllReduce);
        const json receivedJson = throughText(toJson(received));
        QCOMPARE(receivedJson.at("via").get<std::string>(), std::string("gradient_allreduce"));
        QVERIFY(nonFiniteRecordFromJson(receivedJson).event == received.event);
        // A record written before the fields existed: found by the per-step checks.
        json old = j;
        old.erase("located_by");
        old.erase("replay_missed_step");
        const auto oldBack = nonFiniteRecordFromJson(old);
        QCOMPARE(oldBack.event.locatedBy, std::string("check"));
        QCOMPARE(oldBack.event.replayMissedStep, int64_t{0});
        QCOMPARE(back.frames.size(), size_t(1));
        const auto& g = back.frames[0];
        QCOMPARE(g.step, int64_t(8));
        QVERIFY(g.loss && sameStats(*g.loss, *f.loss));
        QCOMPARE(g.layers.size(), size_t(2));
        QCOMPARE(g.layers[0].layer, std::string("conv2"));
        QVERIFY(sameStats(*g.layers[0].activation, *conv.activation));
        QVERIFY(sameStats(*g.layers[0].gradient, allNaN));
        QVERIFY(!g.layers[1].gradient.has_value());
        QCOMPARE(g.layers[1].layerIndex, int64_t(4));
    }

    void updateRatioRoundTrip() {
        UpdateRatioRecord r;
        r.step = 3;
        r.ratio = {"fc", 7, 2.0, 0.002, 0.001, 62730, 100, 25};
        const json j = throughText(toJson(r));
        QCOMPARE_BITS(j.at("lost_fraction").get<double>(), 0.25);
        const auto back = updateRatioRecordFromJson(j);
        QCOMPARE(back.step, int64_t(3));
        QCOMPARE(back.ratio.layer, std::string("fc"));
        QCOMPARE(back.ratio.layerIndex, int64_t(7));
        QCOMPARE_BITS(back.ratio.ratio, 0.001);
        QCOMPARE(back.ratio.lost, int64_t(25));
        QCOMPARE(back.ratio.intendedNonZero, int64_t(100));
        // Not measured: no loss fields; non-finite ratio: null + tag.
        UpdateRatioRecord moved;
        moved.ratio = {"b", 0, 0.0, 1.0, kInf, 4, -1, -1};
        const json m = throughText(toJson(moved));
        QVERIFY(!m.contains("lost"));
        QVERIFY(m.at("ratio").is_null());
        QCOMPARE(m.at("ratio_nonfinite").get<std::string>(), std::string("inf"));
        const auto movedBack = updateRatioRecordFromJson(m);
        QVERIFY(std::isinf(movedBack.ratio.ratio));
        QVERIFY(!movedBack.ratio.measuredLoss());
    }

    void malformedRecordsNameTheField() {
        json j = toJson(UnderflowRecord{});
        j.erase("flushed");
        try {
            underflowRecordFromJson(j);
            QFAIL("no error");
        } catch (const ProbeRecordError& e) {
            QCOMPARE(QString(e.what()), QString("underflow record: missing field \"flushed\""));
        }
        json h = toJson(HistogramRecord{});
        h["counts"] = {1, "two"};
        QVERIFY_EXCEPTION_THROWN(histogramRecordFromJson(h), ProbeRecordError);
        json wrongType = toJson(HistogramRecord{});
        try {
            underflowRecordFromJson(wrongType);
            QFAIL("no error");
        } catch (const ProbeRecordError& e) {
            QVERIFY(QString(e.what()).contains("\"type\" is \"histogram\""));
        }
        QVERIFY_EXCEPTION_THROWN(nonFiniteRecordFromJson(json::array()), ProbeRecordError);
        json step = toJson(NonFiniteRecord{});
        step["step"] = "nine";
        QVERIFY_EXCEPTION_THROWN(nonFiniteRecordFromJson(step), ProbeRecordError);
    }
    // The element statistics both number-format records hold are summed field by field:
    // each field of the sum is its own two addends' sum (every field has other values, so
    // a field left out, or added from another field, gives a wrong number), and the sum
    // returns the left side. Through a format_quant point, as the probe session sums them.
    void formatElementStatsSumEveryField() {
        FormatQuantMeasurement point;
        point.tensors = 1;
        point.elements = 100;
        point.underflowed = 7;
        point.saturated = 3;
        point.nonFinite = 2;
        point.squaredError = 0.5;
        point.squaredSignal = 64.0;
        const FormatElementStats more{1000, 40, 11, 5, 0.25, 32.0};
        FormatElementStats& sum = point;
        QCOMPARE(&(sum += more), &sum);
        QCOMPARE(point.elements, int64_t{1100});
        QCOMPARE(point.underflowed, int64_t{47});
        QCOMPARE(point.saturated, int64_t{14});
        QCOMPARE(point.nonFinite, int64_t{7});
        QCOMPARE_BITS(point.squaredError, 0.75);
        QCOMPARE_BITS(point.squaredSignal, 96.0);
        QCOMPARE(point.tensors, int64_t{1});  // not an element statistic: the caller counts tensors
        // The derived fields read the sums: 47 / 1100, 14 / 1100, 10 log10(96 / 0.75) = 10 log10(128).
        QCOMPARE_BITS(point.underflowFraction(), 47.0 / 1100.0);
        QCOMPARE_BITS(point.saturatedFraction(), 14.0 / 1100.0);
        QCOMPARE_BITS(point.snrDb(), 10.0 * std::log10(128.0));
    }

    // format_sweep: every stored field back through text; the derived fields written
    // (underflow 7 / 128, saturated 3 / 128, SNR 10 log10(64 / 0.064) = 30 dB); an exact
    // format's SNR as null plus "inf".
    void formatSweepRoundTrip() {
        const FormatSweepRecord r{{128, 7, 3, 1, 0.064, 64.0}, 500, "conv2", "activation", "nvfp4"};
        const json j = throughText(toJson(r));
        QCOMPARE(j.at("type").get<std::string>(), std::string("format_sweep"));
        QCOMPARE_BITS(j.at("underflow_fraction").get<double>(), 7.0 / 128.0);
        QCOMPARE_BITS(j.at("saturated_fraction").get<double>(), 3.0 / 128.0);
        QCOMPARE_BITS(j.at("snr_db").get<double>(), 30.0);
        const auto back = formatSweepRecordFromJson(j);
        QCOMPARE(back.step, int64_t{500});
        QCOMPARE(QString::fromStdString(back.layer), QString("conv2"));
        QCOMPARE(QString::fromStdString(back.tensor), QString("activation"));
        QCOMPARE(QString::fromStdString(back.format), QString("nvfp4"));
        QCOMPARE(back.elements, int64_t{128});
        QCOMPARE(back.underflowed, int64_t{7});
        QCOMPARE(back.saturated, int64_t{3});
        QCOMPARE(back.nonFinite, int64_t{1});
        QCOMPARE_BITS(back.squaredError, 0.064);
        QCOMPARE_BITS(back.squaredSignal, 64.0);

        const FormatSweepRecord exact{{10, 0, 0, 0, 0.0, 2.0}, 1, "fc", "gradient", "bf16"};
        const json e = throughText(toJson(exact));
        QVERIFY(e.at("snr_db").is_null());
        QCOMPARE(e.at("snr_db_nonfinite").get<std::string>(), std::string("inf"));
        QVERIFY(std::isinf(formatSweepRecordFromJson(e).snrDb()));

        json missing = toJson(r);
        missing.erase("format");
        try {
            formatSweepRecordFromJson(missing);
            QFAIL("no error");
        } catch (const RecordError& error) {
            QCOMPARE(QString(error.what()), QString("format_sweep record: missing field \"format\""));
        }
    }

    // format_quant with block statistics round trips them; one written before they
    // existed (no blocks, zero_scale_blocks, crushed_by_outlier, block_scale_exponents)
    // reads as zeros and no exponents; block_scale_exponents that are not exponent ->
    // count fail with a RecordError saying so.
    void formatQuantBlocksRoundTripAndOlderRecords() {
        FormatQuantRecord r;
        r.step = 50;
        r.point.layer = "fc1";
        r.point.operand = "weight";
        r.point.direction = "forward";
        r.point.format = "e2m1";
        r.point.recipe = "nvfp4";
        r.point.tensors = 2;
        r.point.elements = 256;
        r.point.underflowed = 12;
        r.point.squaredError = 0.5;
        r.point.squaredSignal = 50.0;
        r.point.amax = 6.0;
        r.point.scale = 0.25;
        r.point.scaleAmax = 6.0;
        r.point.blocks = 16;
        r.point.zeroScaleBlocks = 1;
        r.point.crushedByOutlier = 9;
        r.point.blockScaleExponents = {{-12, 3}, {-2, 12}};
        const json j = throughText(toJson(r));
        QCOMPARE(j.at("block_scale_exponents"), json({{"-12", 3}, {"-2", 12}}));
        QCOMPARE_BITS(j.at("crushed_fraction").get<double>(), 9.0 / 256.0);
        const auto back = formatQuantRecordFromJson(j);
        QCOMPARE(back.point.blocks, int64_t{16});
        QCOMPARE(back.point.zeroScaleBlocks, int64_t{1});
        QCOMPARE(back.point.crushedByOutlier, int64_t{9});
        QCOMPARE(back.point.blockScaleExponents, (std::map<int, int64_t>{{-12, 3}, {-2, 12}}));
        QCOMPARE_BITS(back.point.scale, 0.25);
        QCOMPARE(QString::fromStdString(blockScaleExponentsText(back.point.blockScaleExponents)),
                 QString("-12:3 -2:12"));

        json older = j;
        for (const char* key : {"blocks", "zero_scale_blocks", "crushed_by_outlier", "block_scale_exponents",
                                "crushed_fraction"})
            older.erase(key);
        const auto old = formatQuantRecordFromJson(older);
        QCOMPARE(old.point.blocks, int64_t{0});
        QCOMPARE(old.point.zeroScaleBlocks, int64_t{0});
        QCOMPARE(old.point.crushedByOutlier, int64_t{0});
        QVERIFY(old.point.blockScaleExponents.empty());
        QCOMPARE(old.point.underflowed, int64_t{12});

        const auto failsWith = [&j](const json& exponents, const QString& expected) {
            json bad = j;
            bad["block_scale_exponents"] = exponents;
            try {
                formatQuantRecordFromJson(bad);
                QFAIL("no error");
            } catch (const RecordError& error) {
                QCOMPARE(QString(error.what()), expected);
            }
        };
        failsWith(json::array({1, 2}), "format_quant record: field \"block_scale_exponents\" must be an object");
        failsWith(json({{"minus two", 3}}),
                  "format_quant record: \"block_scale_exponents\" must map exponents to block counts");
        failsWith(json({{"-2", "twelve"}}),
                  "format_quant record: \"block_scale_exponents\" must map exponents to block counts");
        failsWith(json({{"-2x", 1}}),
                  "format_quant record: \"block_scale_exponents\" must map exponents to block counts");
    }

    // precision_map: every field back through text (a histogram trimmed to its non-empty
    // bins reads back whole; +inf SNR and a NaN added error by the non-finite rule); the
    // derived gain written; the first op past 10 u and the largest added errors, by hand.
    void precisionMapRoundTrip() {
        PrecisionMapRecord r;
        r.step = 7;
        r.mode = "bf16";
        r.reference = "fp32";
        r.formatForward = r.formatBackward = "bf16";
        r.bitsForward = r.bitsBackward = 8;
        r.seconds = 0.25;
        PrecisionMapOp a;
        a.op = "aten::conv2d";
        a.module = "conv1";
        a.phase = "forward";
        a.elements = 100;
        a.relError = 0.002;
        a.snrDb = 53.9;
        a.addedError = 0.002;
        a.ulpsMax = 1.5;
        a.ulpsRms = 0.3;
        a.run.counts[64] = 90;  // 2^0 <= |x| < 2^1
        a.run.counts[65] = 10;
        a.reference.counts[64] = 100;
        PrecisionMapOp b = a;
        b.op = "aten::relu";
        b.addedError = kNaN;
        b.snrDb = kInf;
        b.relError = 0.05;  // 12.8 u: past 10 u
        b.inputError = 0.002;
        b.flushed = 0.25;
        b.newInf = 2;
        b.output = 1;
        b.node = "ReluBackward0";
        b.phase = "backward";
        r.ops = {a, b};
        r.modules = {{"conv1", "forward", 0, 1, 0.0, 0.002}, {"conv1", "backward", 1, 1, 0.25, 0.5}};
        r.unmatched = {{"run", "aten::mul", "loss", "backward"}};
        const json j = throughText(toJson(r));
        QCOMPARE(j.at("type").get<std::string>(), std::string("precision_map"));
        QCOMPARE(j.at("ops")[0].at("histogram").at("min_exponent").get<int>(), 0);
        QCOMPARE(j.at("ops")[0].at("histogram").at("counts").size(), size_t(2));
        QVERIFY(j.at("modules")[0].at("gain").is_null());
        QCOMPARE_BITS(j.at("modules")[1].at("gain").get<double>(), 2.0);
        const auto back = precisionMapRecordFromJson(j);
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.mode, r.mode);
        QCOMPARE(back.bitsForward, 8);
        QCOMPARE(back.ops.size(), size_t(2));
        QVERIFY(back.ops[0].run == a.run);
        QVERIFY(back.ops[0].reference == a.reference);
        QCOMPARE(back.ops[1].node, b.node);
        QCOMPARE(back.ops[1].output, 1);
        QVERIFY(std::isnan(back.ops[1].addedError));
        QVERIFY(std::isinf(back.ops[1].snrDb));
        QCOMPARE_BITS(back.ops[1].flushed, 0.25);
        QCOMPARE(back.ops[1].newInf, int64_t{2});
        QCOMPARE(back.modules.size(), size_t(2));
        QCOMPARE_BITS(back.modules[1].inputError, 0.25);
        QCOMPARE(back.unmatched.size(), size_t(1));
        QCOMPARE(back.unmatched[0].op, std::string("aten::mul"));
        QCOMPARE_BITS(back.unitRoundoff("forward"), 1.0 / 256.0);
        QCOMPARE(back.firstPastTolerance().value_or(99), size_t(1));
        QCOMPARE(back.largestAdded(10), std::vector<size_t>{0});

        json missing = toJson(r);
        missing["ops"][0].erase("rel_error");
        try {
            precisionMapRecordFromJson(missing);
            QFAIL("no error");
        } catch (const RecordError& error) {
            QVERIFY2(QString(error.what()).contains("rel_error"), error.what());
        }
    }
};

QTEST_APPLESS_MAIN(ProbeRecordsTest)
#include "test_probe_records.moc"
