// Data export (core/export): CSV tables of a run, TFRecord framing with masked CRC-32C,
// and TensorBoard event files that decode back to the values written.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "engine/Engine.h"
#include "export/Crc32c.h"
#include "export/CsvWriter.h"
#include "export/RunCsvExport.h"
#include "export/TfEvent.h"
#include "export/TfEventsExport.h"
#include "export/TfRecordFile.h"
#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/PrecisionMapRecord.h"
#include "run/RunReader.h"

using namespace ampscope;
using nlohmann::json;

namespace {

std::vector<std::string> readLines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeAll(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

// A histogram record with the given non-zero bins (exponent -> count) and extra counts.
json histogramJson(int64_t step, const std::string& layer, const std::map<int, int64_t>& bins,
                   int64_t zero, int64_t nan) {
    std::vector<int64_t> counts(97, 0);
    for (const auto& [exponent, count] : bins)
        counts[static_cast<std::size_t>(exponent + 64)] = count;
    return {{"type", "histogram"}, {"step", step},     {"layer", layer}, {"kind", "param_grad"},
            {"min_exponent", -64}, {"counts", counts}, {"below", 0},     {"above", 0},
            {"zero", zero},        {"nan", nan},       {"pos_inf", 0},   {"neg_inf", 0}};
}

// A small run made by hand: every cell value below is known.
RunData handMadeRun() {
    RunData run;
    run.config = {{"schema_version", 1}, {"name", "hand"}};
    run.events = {
        {{"type", "run_start"}, {"schema_version", 1}, {"time", "2024-05-01T12:00:00Z"}},
        {{"type", "step"},
         {"step", 1},
         {"epoch", 1},
         {"loss", 2.5},
         {"scale", 65536.0},
         {"step_seconds", 0.5},
         {"step_skipped", false}},
        {{"type", "step"},
         {"step", 2},
         {"epoch", 1},
         {"loss", nullptr},
         {"loss_nonfinite", "nan"},
         {"scale", 32768.0},
         {"step_seconds", 0.25},
         {"step_skipped", true}},
        {{"type", "step"},
         {"step", 3},
         {"epoch", 1},
         {"loss", 0.1},
         {"scale", 32768.0},
         {"step_seconds", 0.25},
         {"step_skipped", false},
         {"memory_bytes", 1024}},
        histogramJson(2, "fc1", {{-30, 5}, {-3, 7}}, 4, 1),
        histogramJson(2, "a,b", {{0, 2}}, 0, 0),
        {{"type", "underflow"},
         {"step", 2},
         {"layer", "fc1"},
         {"kind", "param_grad_scaled"},
         {"multiplier", 1.0},
         {"zero", 4},
         {"flushed", 5},
         {"subnormal", 0},
         {"normal", 7},
         {"overflow", 0},
         {"nan", 1},
         {"inf", 0},
         {"exact", true}},
        {{"type", "update_ratio"},
         {"step", 3},
         {"layer", "fc1"},
         {"layer_index", 0},
         {"ratio", 0.001},
         {"weight_norm", 2.0},
         {"update_norm", 0.002},
         {"numel", 12}},
        {{"type", "epoch"},
         {"epoch", 1},
         {"step", 3},
         {"train_loss", 1.3},
         {"val_loss", 1.1},
         {"val_accuracy", 0.75},
         {"seconds", 1.0}},
        {{"type", "run_end"}, {"status", "finished"}, {"step", 3}},
    };
    run.summary = json{{"status", "finished"}, {"steps", 3}};
    run.complete = true;
    return run;
}

std::map<std::string, float> scalarsAtStep(const std::vector<TfEvent>& events, int64_t step) {
    std::map<std::string, float> out;
    for (const auto& e : events)
        if (e.step == step)
            for (const auto& v : e.values)
                if (v.simpleValue) out[v.tag] = *v.simpleValue;
    return out;
}

std::vector<TfEvent> decodeFile(const std::string& path) {
    std::vector<TfEvent> events;
    for (const auto& record : readTfRecordFile(path)) events.push_back(decodeTfEvent(record));
    return events;
}

// Protobuf wire format read by hand (not with libprotobuf), to check the field numbers
// against TensorBoard's documented ones: Event.step = 2 (varint), Event.summary = 5,
// Summary.value = 1, Value.tag = 1, Value.simple_value = 2 (fixed32).
struct WireField {
    int number = 0;
    int wireType = 0;
    uint64_t varint = 0;
    std::string bytes;  // length-delimited and fixed32 payloads
};

std::vector<WireField> wireFields(const std::string& message) {
    std::vector<WireField> fields;
    std::size_t at = 0;
    const auto readVarint = [&] {
        uint64_t value = 0;
        for (int shift = 0; at < message.size(); shift += 7) {
            const auto byte = static_cast<unsigned char>(message[at++]);
            value |= static_cast<uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80)) break;
        }
        return value;
    };
    while (at < message.size()) {
        const uint64_t key = readVarint();
        WireField f;
        f.number = static_cast<int>(key >> 3);
        f.wireType = static_cast<int>(key & 7);
        if (f.wireType == 0)
            f.varint = readVarint();
        else if (f.wireType == 1) {
            f.bytes = message.substr(at, 8);
            at += 8;
        } else if (f.wireType == 5) {
            f.bytes = message.substr(at, 4);
            at += 4;
        } else if (f.wireType == 2) {
            const auto length = static_cast<std::size_t>(readVarint());
            f.bytes = message.substr(at, length);
            at += length;
        } else
            break;
        fields.push_back(f);
    }
    return fields;
}

// A run of format records only: two format_sweep records of fc1's gradient (e4m3:
// 10 of 200 underflowed, 1 saturated, SNR 10 log10(10 / 0.01) = 30 dB; fp16: exact,
// SNR +inf) and one format_quant point (MX e2m1 input: 8 of 64 underflowed, 4 crushed
// by an outlier, SNR 20 dB, block scales 2^-10 x1, 2^-9 x2, 2^-1 x3).
RunData formatRecordsRun() {
    RunData run;
    run.config = {{"schema_version", 1}, {"name", "formats"}};
    FormatSweepRecord e4m3{{200, 10, 1, 0, 0.01, 10.0}, 4, "fc1", "gradient", "e4m3"};
    FormatSweepRecord fp16{{200, 0, 0, 0, 0.0, 10.0}, 4, "fc1", "gradient", "fp16"};
    FormatQuantRecord point;
    point.step = 4;
    point.point.layer = "fc1";
    point.point.operand = "input";
    point.point.direction = "forward";
    point.point.format = "e2m1";
    point.point.recipe = "mx";
    point.point.tensors = 1;
    point.point.elements = 64;
    point.point.underflowed = 8;
    point.point.squaredError = 0.1;
    point.point.squaredSignal = 10.0;
    point.point.amax = 3.0;
    point.point.blocks = 2;
    point.point.crushedByOutlier = 4;
    point.point.blockScaleExponents = {{-10, 1}, {-9, 2}, {-1, 3}};
    run.events = {{{"type", "run_start"}, {"schema_version", 1}, {"time", "2024-05-01T12:00:00Z"}},
                  toJson(e4m3), toJson(fp16), toJson(point)};
    return run;
}

// A run holding one precision map of step 6 (bf16 against fp32): fc1's matmul (rel error
// 2^-9, its own the same), fc1's ReLU (adds 0), one backward matmul whose run went NaN in
// one element; fc1 forward: no error entering, 2^-9 leaving; fc2 forward: 2^-9 entering,
// 2^-7 leaving, a gain of 4.
RunData precisionMapRun() {
    PrecisionMapRecord map;
    map.step = 6;
    map.mode = "bf16";
    map.reference = "fp32";
    map.formatForward = map.formatBackward = "bf16";
    map.bitsForward = map.bitsBackward = 8;
    PrecisionMapOp matmul;
    matmul.op = "aten::addmm";
    matmul.module = "fc1";
    matmul.phase = "forward";
    matmul.elements = 64;
    matmul.relError = matmul.addedError = std::ldexp(1.0, -9);
    matmul.snrDb = 20.0 * std::log10(512.0);
    PrecisionMapOp relu = matmul;
    relu.op = "aten::relu";
    relu.addedError = 0.0;
    relu.inputError = std::ldexp(1.0, -9);
    PrecisionMapOp backward = matmul;
    backward.op = "aten::mm";
    backward.module = "fc2";
    backward.phase = "backward";
    backward.node = "MmBackward0";
    backward.output = 1;
    backward.relError = std::ldexp(1.0, -7);
    backward.newNan = 1;
    map.ops = {matmul, relu, backward};
    map.modules = {{"fc1", "forward", 0, 2, 0.0, std::ldexp(1.0, -9)},
                   {"fc2", "forward", 2, 1, std::ldexp(1.0, -9), std::ldexp(1.0, -7)}};
    RunData run;
    run.config = {{"schema_version", 1}, {"name", "map"}};
    run.events = {{{"type", "run_start"}, {"schema_version", 1}, {"time", "2024-05-01T12:00:00Z"}}, toJson(map)};
    return run;
}

// The cells of a CSV line (no quoted commas in these tables).
std::vector<std::string> cellsOf(const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    return cells;
}

}  // namespace

class ExportTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void crc32cMatchesTheCastagnoliCheckValue() {
        // The CRC-32C check value of "123456789" (RFC 3720, iSCSI) and of nothing.
        QCOMPARE(crc32c("123456789"), 0xE3069283u);
        QCOMPARE(crc32c(""), 0u);
        // 32 zero bytes: RFC 3720 B.4 test vector.
        QCOMPARE(crc32c(std::string(32, '\0')), 0x8A9136AAu);
        for (uint32_t v : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu})
            QCOMPARE(unmaskCrc32c(maskCrc32c(v)), v);
        // The mask by hand: rotate right by 15, add 0xa282ead8 (mod 2^32).
        QCOMPARE(maskCrc32c(0x00000001u), 0x00020000u + 0xa282ead8u);
    }

    void tfRecordFramingRoundTripsAndDetectsDamage() {
        const std::string framed = frameTfRecord("abc");
        QCOMPARE(framed.size(), std::size_t(3 + 16));
        QCOMPARE(static_cast<unsigned char>(framed[0]), 3);  // little-endian length
        for (int i = 1; i < 8; ++i) QCOMPARE(static_cast<int>(framed[i]), 0);
        uint32_t dataCrc = 0;
        std::memcpy(&dataCrc, framed.data() + 15, 4);
        QCOMPARE(dataCrc, maskCrc32c(crc32c("abc")));

        QTemporaryDir tmp;
        const std::string path = tmp.filePath("records").toStdString();
        {
            TfRecordWriter writer(path);
            writer.write("first");
            writer.write(std::string(1000, 'x'));
            writer.write("");
            writer.close();
        }
        const auto records = readTfRecordFile(path);
        QCOMPARE(records.size(), std::size_t(3));
        QCOMPARE(records[0], std::string("first"));
        QCOMPARE(records[1], std::string(1000, 'x'));
        QCOMPARE(records[2], std::string());

        std::string bytes = readAll(path);
        bytes[12 + 2] ^= 0x01;  // a bit of "first"
        writeAll(path, bytes);
        try {
            readTfRecordFile(path);
            QFAIL("a damaged record was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("record 1 at byte 0: data CRC mismatch") !=
                         std::string::npos,
                     e.what());
        }
        bytes[12 + 2] ^= 0x01;
        writeAll(path, bytes.substr(0, bytes.size() - 3));  // the last record's CRC torn
        try {
            readTfRecordFile(path);
            QFAIL("a truncated file was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("record 3") != std::string::npos, e.what());
        }
    }

    void csvCellsFollowTheRunDirectoryRules() {
        QCOMPARE(csvCellFromJson(json(nullptr), "nan"), std::string("nan"));
        QCOMPARE(csvCellFromJson(json(nullptr), "-inf"), std::string("-inf"));
        QCOMPARE(csvCellFromJson(json(nullptr)), std::string());
        QCOMPARE(csvCellFromJson(json(0.1)), std::string("0.1"));
        QCOMPARE(csvCellFromJson(json(1e-8)), std::string("1e-08"));
        QCOMPARE(csvCellFromJson(json(42)), std::string("42"));
        QCOMPARE(csvCellFromJson(json(true)), std::string("true"));
        QCOMPARE(csvCellFromJson(json("a,\"b\"")), std::string("\"a,\"\"b\"\"\""));
        QCOMPARE(csvCellFromJson(json::array({1, 2})), std::string("\"[1,2]\""));
        // Shortest round trip: the cell reads back to the same double.
        const double third = 1.0 / 3.0;
        QCOMPARE_BITS(std::stod(csvNumber(third)), third);
    }

    void csvOfAHandMadeRunHasKnownRowsAndCells() {
        QTemporaryDir tmp;
        const std::string out = tmp.filePath("csv").toStdString();
        const CsvExportResult result = exportRunCsv(handMadeRun(), out);
        QCOMPARE(result.dataRows.at("steps.csv"), int64_t(3));
        QCOMPARE(result.dataRows.at("epochs.csv"), int64_t(1));
        // fc1: bins -30 and -3, zero 4, nan 1 (4 rows); "a,b": bin 0 (1 row). Zero bins out.
        QCOMPARE(result.dataRows.at("histograms.csv"), int64_t(5));
        QCOMPARE(result.dataRows.at("underflow.csv"), int64_t(7));
        QCOMPARE(result.dataRows.at("update_ratio.csv"), int64_t(1));
        QVERIFY(!result.dataRows.count("run_start.csv"));

        const auto steps = readLines(out + "/steps.csv");
        QCOMPARE(steps.size(), std::size_t(4));
        // step and epoch lead, then the union of fields in first-seen order (a record's
        // keys come sorted); memory_bytes only from step 3 on.
        QCOMPARE(steps[0],
                 std::string("step,epoch,loss,scale,step_seconds,step_skipped,memory_bytes"));
        QCOMPARE(steps[1], std::string("1,1,2.5,65536,0.5,false,"));
        QCOMPARE(steps[2], std::string("2,1,nan,32768,0.25,true,"));
        QCOMPARE(steps[3], std::string("3,1,0.1,32768,0.25,false,1024"));

        const auto histograms = readLines(out + "/histograms.csv");
        QCOMPARE(histograms[0], std::string("step,layer,kind,bin,count"));
        QCOMPARE(histograms[1], std::string("2,fc1,param_grad,-30,5"));
        QCOMPARE(histograms[2], std::string("2,fc1,param_grad,-3,7"));
        QCOMPARE(histograms[3], std::string("2,fc1,param_grad,zero,4"));
        QCOMPARE(histograms[4], std::string("2,fc1,param_grad,nan,1"));
        QCOMPARE(histograms[5], std::string("2,\"a,b\",param_grad,0,2"));

        const auto underflow = readLines(out + "/underflow.csv");
        QCOMPARE(underflow[2], std::string("2,fc1,param_grad_scaled,1,true,flushed,5"));
        const auto epochs = readLines(out + "/epochs.csv");
        QCOMPARE(epochs[0], std::string("step,epoch,seconds,train_loss,val_accuracy,val_loss"));
        QCOMPARE(epochs[1], std::string("3,1,1,1.3,0.75,1.1"));
        const auto ratios = readLines(out + "/update_ratio.csv");
        QCOMPARE(ratios[0],
                 std::string("step,layer,layer_index,numel,ratio,update_norm,weight_norm"));
        QCOMPARE(ratios[1], std::string("3,fc1,0,12,0.001,0.002,2"));
        QCOMPARE(json::parse(readAll(out + "/config.json")).at("name"), json("hand"));
        QCOMPARE(json::parse(readAll(out + "/summary.json")).at("steps"), json(3));
    }

    void csvExportToAnUnwritableFolderNamesIt() {
        QTemporaryDir tmp;
        const std::string file = tmp.filePath("plain-file").toStdString();
        writeAll(file, "x");
        try {
            exportRunCsv(handMadeRun(), file + "/sub");
            QFAIL("exported into a file");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).rfind(file + "/sub: cannot create", 0) == 0, e.what());
        }
    }

    void tfEventsOfAHandMadeRunDecodeToTheValuesWritten() {
        if (!tfEventCodecAvailable()) QSKIP("built without protobuf");
        QTemporaryDir tmp;
        const auto result = exportRunTfEvents(handMadeRun(), tmp.filePath("tb").toStdString());
        QVERIFY(result.path.find("/events.out.tfevents.1714564800.ampscope") != std::string::npos);
        const auto events = decodeFile(result.path);
        QCOMPARE(events.front().fileVersion, std::string("brain.Event:2"));
        QCOMPARE_BITS(events.front().wallTime, 1714564800.0);  // 2024-05-01T12:00:00Z
        QCOMPARE(int64_t(events.size()), result.events);

        const auto step1 = scalarsAtStep(events, 1);
        QCOMPARE_BITS(step1.at("train/loss"), 2.5f);
        QCOMPARE_BITS(step1.at("amp/scale"), 65536.0f);
        QCOMPARE_BITS(step1.at("amp/step_skipped"), 0.0f);
        const auto step2 = scalarsAtStep(events, 2);
        QVERIFY(std::isnan(step2.at("train/loss")));
        QCOMPARE_BITS(step2.at("amp/step_skipped"), 1.0f);
        // underflow of fc1 at step 2: 17 elements, 5 flushed.
        QCOMPARE_BITS(step2.at("underflow/param_grad_scaled/fc1/flushed"), 5.0f / 17.0f);
        QCOMPARE_BITS(step2.at("underflow/param_grad_scaled/fc1/overflow"), 0.0f);
        const auto step3 = scalarsAtStep(events, 3);
        QCOMPARE_BITS(step3.at("val/accuracy"), 0.75f);
        QCOMPARE_BITS(step3.at("update_ratio/fc1"), 0.001f);
        // Wall time: start + step seconds so far (0.5 + 0.25 + 0.25 at step 3).
        for (const auto& e : events)
            if (e.step == 3) QCOMPARE_BITS(e.wallTime, 1714564801.0);

        // The histogram of fc1: bins -30 (5) .. -3 (7), limits are the right edges.
        const TfHistogram* h = nullptr;
        for (const auto& e : events)
            for (const auto& v : e.values)
                if (v.tag == "log2_abs_grad/param_grad/fc1") h = &*v.histogram;
        QVERIFY(h);
        QCOMPARE_BITS(h->num, 12.0);
        QCOMPARE_BITS(h->min, -30.0);
        QCOMPARE_BITS(h->max, -2.0);
        QCOMPARE(h->bucketLimits.size(), std::size_t(28));  // -30 .. -3
        QCOMPARE_BITS(h->bucketLimits.front(), -29.0);
        QCOMPARE_BITS(h->buckets.front(), 5.0);
        QCOMPARE_BITS(h->buckets.back(), 7.0);
        QCOMPARE_BITS(h->sum, 5 * -29.5 + 7 * -2.5);
    }

    // format_sweep.csv and format_quant.csv: the identifying columns lead; the block
    // scales read as one cell, lowest exponent first (JSON's text order would put -1
    // before -10); an exact SNR reads "inf".
    void csvOfFormatRecords() {
        QTemporaryDir tmp;
        const std::string out = tmp.filePath("csv").toStdString();
        const CsvExportResult result = exportRunCsv(formatRecordsRun(), out);
        QCOMPARE(result.dataRows.at("format_sweep.csv"), int64_t(2));
        QCOMPARE(result.dataRows.at("format_quant.csv"), int64_t(1));

        const auto sweep = readLines(out + "/format_sweep.csv");
        const auto header = cellsOf(sweep[0]);
        QCOMPARE(std::vector<std::string>(header.begin(), header.begin() + 4),
                 (std::vector<std::string>{"step", "layer", "tensor", "format"}));
        std::map<std::string, std::string> e4m3, fp16;
        for (std::size_t i = 0; i < header.size(); ++i) {
            e4m3[header[i]] = cellsOf(sweep[1]).at(i);
            fp16[header[i]] = cellsOf(sweep[2]).at(i);
        }
        QCOMPARE(e4m3.at("format"), std::string("e4m3"));
        QCOMPARE(e4m3.at("underflowed"), std::string("10"));
        QCOMPARE(e4m3.at("underflow_fraction"), std::string("0.05"));
        QCOMPARE(e4m3.at("saturated_fraction"), std::string("0.005"));
        QCOMPARE_BITS(std::stod(e4m3.at("snr_db")), 30.0);
        QCOMPARE(fp16.at("snr_db"), std::string("inf"));

        const auto quant = readLines(out + "/format_quant.csv");
        const auto quantHeader = cellsOf(quant[0]);
        QCOMPARE(std::vector<std::string>(quantHeader.begin(), quantHeader.begin() + 6),
                 (std::vector<std::string>{"step", "layer", "operand", "direction", "format", "recipe"}));
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < quantHeader.size(); ++i) row[quantHeader[i]] = cellsOf(quant[1]).at(i);
        QCOMPARE(row.at("block_scale_exponents"), std::string("-10:1 -9:2 -1:3"));
        QCOMPARE(row.at("crushed_fraction"), std::string("0.0625"));
        QCOMPARE(row.at("scale"), std::string("nan"));
        QCOMPARE_BITS(std::stod(row.at("snr_db")), 20.0);
    }

    // TensorBoard scalars of the same records: format_sweep/<tensor>/<metric>/<format>/<layer>
    // and format_quant/<layer>/<operand>_<direction>/<metric>; an infinite SNR and MX's
    // NaN scale are left out.
    void tfEventsOfFormatRecords() {
        if (!tfEventCodecAvailable()) QSKIP("built without protobuf");
        QTemporaryDir tmp;
        const auto result = exportRunTfEvents(formatRecordsRun(), tmp.filePath("tb").toStdString());
        const auto step4 = scalarsAtStep(decodeFile(result.path), 4);
        QCOMPARE_BITS(step4.at("format_sweep/gradient/underflow/e4m3/fc1"), 0.05f);
        QCOMPARE_BITS(step4.at("format_sweep/gradient/saturated/e4m3/fc1"), 0.005f);
        QCOMPARE_BITS(step4.at("format_sweep/gradient/snr_db/e4m3/fc1"), 30.0f);
        QCOMPARE_BITS(step4.at("format_sweep/gradient/underflow/fp16/fc1"), 0.0f);
        QVERIFY(!step4.count("format_sweep/gradient/snr_db/fp16/fc1"));
        QCOMPARE_BITS(step4.at("format_quant/fc1/input_forward/underflow"), 0.125f);
        QCOMPARE_BITS(step4.at("format_quant/fc1/input_forward/saturated"), 0.0f);
        QCOMPARE_BITS(step4.at("format_quant/fc1/input_forward/snr_db"), 20.0f);
        QCOMPARE_BITS(step4.at("format_quant/fc1/input_forward/amax"), 3.0f);
        QCOMPARE_BITS(step4.at("format_quant/fc1/input_forward/crushed"), 0.0625f);
        QVERIFY(!step4.count("format_quant/fc1/input_forward/scale"));
        QCOMPARE(int64_t(step4.size()), int64_t(5 + 5));
    }

    // precision_map.csv: one row per op with the unit roundoff of its phase (2^-8 for
    // bf16); precision_map_modules.csv: the gain, empty ("nan") where no error entered.
    void csvOfPrecisionMaps() {
        QTemporaryDir tmp;
        const std::string out = tmp.filePath("csv").toStdString();
        const CsvExportResult result = exportRunCsv(precisionMapRun(), out);
        QCOMPARE(result.dataRows.at("precision_map.csv"), int64_t(3));
        const auto ops = readLines(out + "/precision_map.csv");
        QCOMPARE(ops.size(), size_t{4});
        const auto header = cellsOf(ops[0]);
        std::vector<std::map<std::string, std::string>> rows(3);
        for (size_t r = 0; r < 3; ++r)
            for (size_t i = 0; i < header.size(); ++i) rows[r][header[i]] = cellsOf(ops[r + 1]).at(i);
        QCOMPARE(rows[0].at("op"), std::string("aten::addmm"));
        QCOMPARE(rows[0].at("step"), std::string("6"));
        QCOMPARE(rows[0].at("rel_error"), std::string("0.001953125"));
        QCOMPARE(rows[0].at("unit_roundoff"), std::string("0.00390625"));
        QCOMPARE(rows[1].at("added_error"), std::string("0"));
        QCOMPARE(rows[1].at("input_error"), std::string("0.001953125"));
        QCOMPARE(rows[2].at("node"), std::string("MmBackward0"));
        QCOMPARE(rows[2].at("output"), std::string("1"));
        QCOMPARE(rows[2].at("new_nan"), std::string("1"));
        const auto modules = readLines(out + "/precision_map_modules.csv");
        QCOMPARE(modules.size(), size_t{3});
        const auto moduleHeader = cellsOf(modules[0]);
        std::map<std::string, std::string> fc1, fc2;
        for (size_t i = 0; i < moduleHeader.size(); ++i) {
            fc1[moduleHeader[i]] = cellsOf(modules[1]).at(i);
            fc2[moduleHeader[i]] = cellsOf(modules[2]).at(i);
        }
        QCOMPARE(fc1.at("gain"), std::string("nan"));
        QCOMPARE(fc2.at("gain"), std::string("4"));
        QCOMPARE(fc2.at("output_error"), std::string("0.0078125"));
    }

    // TensorBoard: precision_map/<phase>/<module>/{input_error,output_error,gain} and
    // precision_map_op/<phase>/<index> <module> <op>/{rel_error,added_error}; the gain
    // where no error entered is left out.
    void tfEventsOfPrecisionMaps() {
        if (!tfEventCodecAvailable()) QSKIP("built without protobuf");
        QTemporaryDir tmp;
        const auto result = exportRunTfEvents(precisionMapRun(), tmp.filePath("tb").toStdString());
        const auto step6 = scalarsAtStep(decodeFile(result.path), 6);
        // Exact: the values are powers of two, exact in a float.
        const auto exactly = [](float actual, float expected) {
            if (actual == expected) return true;
            qWarning("%.9g, expected %.9g", double(actual), double(expected));
            return false;
        };
        QVERIFY(exactly(step6.at("precision_map/forward/fc2/gain"), 4.0f));
        QVERIFY(exactly(step6.at("precision_map/forward/fc1/output_error"), 0.001953125f));
        QVERIFY(!step6.count("precision_map/forward/fc1/gain"));
        QVERIFY(exactly(step6.at("precision_map_op/forward/0001 fc1 aten::relu/added_error"), 0.0f));
        QVERIFY(exactly(step6.at("precision_map_op/backward/0002 fc2 aten::mm[1]/rel_error"), 0.0078125f));
        // 2 modules x 3 (one gain left out) + 3 ops x 2.
        QCOMPARE(int64_t(step6.size()), int64_t(5 + 6));
    }

    void tfEventFieldNumbersAreTensorBoards() {
        if (!tfEventCodecAvailable()) QSKIP("built without protobuf");
        TfEvent event;
        event.wallTime = 10.0;
        event.step = 7;
        TfValue value;
        value.tag = "train/loss";
        value.simpleValue = 0.5f;
        event.values.push_back(value);
        const auto fields = wireFields(encodeTfEvent(event));
        std::map<int, WireField> byNumber;
        for (const auto& f : fields) byNumber[f.number] = f;
        QCOMPARE(byNumber.at(1).wireType, 1);  // wall_time: double
        double wall = 0;
        std::memcpy(&wall, byNumber.at(1).bytes.data(), 8);
        QCOMPARE_BITS(wall, 10.0);
        QCOMPARE(byNumber.at(2).varint, uint64_t(7));  // step
        const auto summary = wireFields(byNumber.at(5).bytes);
        QCOMPARE(summary.size(), std::size_t(1));
        QCOMPARE(summary[0].number, 1);  // Summary.value
        const auto v = wireFields(summary[0].bytes);
        QCOMPARE(v[0].number, 1);
        QCOMPARE(v[0].bytes, std::string("train/loss"));
        QCOMPARE(v[1].number, 2);
        QCOMPARE(v[1].wireType, 5);
        float simple = 0;
        std::memcpy(&simple, v[1].bytes.data(), 4);
        QCOMPARE_BITS(simple, 0.5f);
    }

    void exportsOfARecordedRunMatchItsRecords() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("run").toStdString();
        RunConfig config = test::spiralsMlpConfig(256);
        config.precision.mode = "fp16";
        config.probes.every = 2;
        {
            Engine engine(config, dir);
            engine.start();
            engine.wait();
        }
        const RunData run = readRunDirectory(dir);
        QVERIFY(run.complete);
        int64_t steps = 0, epochs = 0, histogramRows = 0, histograms = 0, underflow = 0;
        std::vector<float> losses;
        for (const auto& r : run.events) {
            const std::string type = r.value("type", "");
            if (type == "step") {
                ++steps;
                losses.push_back(r.at("loss").get<float>());
            }
            if (type == "epoch") ++epochs;
            if (type == "underflow") ++underflow;
            if (type == "histogram") {
                ++histograms;
                for (const auto& c : r.at("counts")) histogramRows += c.get<int64_t>() != 0;
                for (const char* k : {"below", "above", "zero", "nan", "pos_inf", "neg_inf"})
                    histogramRows += r.at(k).get<int64_t>() != 0;
            }
        }
        QCOMPARE(steps, run.summary->at("steps").get<int64_t>());
        QVERIFY(histograms > 0);

        const auto csv = exportRunCsv(run, tmp.filePath("csv").toStdString());
        QCOMPARE(csv.dataRows.at("steps.csv"), steps);
        QCOMPARE(csv.dataRows.at("epochs.csv"), epochs);
        QCOMPARE(csv.dataRows.at("histograms.csv"), histogramRows);
        QCOMPARE(csv.dataRows.at("underflow.csv"), underflow * 7);
        QCOMPARE(int64_t(readLines(tmp.filePath("csv/steps.csv").toStdString()).size()), steps + 1);

        if (!tfEventCodecAvailable()) QSKIP("built without protobuf");
        const auto tb = exportRunTfEvents(run, tmp.filePath("tb").toStdString());
        const auto events = decodeFile(tb.path);
        std::vector<float> tbLosses;
        int64_t tbHistograms = 0;
        for (const auto& e : events)
            for (const auto& v : e.values) {
                if (v.tag == "train/loss") tbLosses.push_back(*v.simpleValue);
                if (v.histogram) ++tbHistograms;
            }
        QCOMPARE(tbLosses, losses);
        QCOMPARE(tbHistograms, histograms);
        QCOMPARE(tb.histograms, histograms);
    }
};

QTEST_GUILESS_MAIN(ExportTest)
#include "test_export.moc"
