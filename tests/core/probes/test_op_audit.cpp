// Op-dtype audit and memory records of probe steps: which op of each layer ran
// in which dtype (fp32 all float32; real bf16 autocast casts linear to
// bfloat16; emulated fp16 reports float16 values held in float32; a layer kept
// in fp32 stays float32), and the bytes of the layer outputs by dtype against
// a hand count (batch x width x bytes per element, summed over the layers).
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "engine/Engine.h"
#include "probes/ProbeRecords.h"
#include "probes/StepAuditRecords.h"
#include "run/RunReader.h"
#include "RunSupport.h"
#include "TestSupport.h"

using namespace ampscope;

namespace {

using test::recordsOf;
using test::runAndRead;
using test::stepLosses;

RunConfig spirals(const std::string& mode) {
    RunConfig c = test::probedSpiralsConfig(mode, 2);
    c.train.max_steps = 3;
    return c;
}

struct Audit {
    RunData run;
    OpDtypesRecord ops;  // step 1's
    MemoryRecord memory;  // step 1's
};

Audit runAudit(const RunConfig& config) {
    QTemporaryDir tmp;
    const std::string dir = tmp.filePath("run").toStdString();
    Engine engine(config, dir);
    engine.start();
    engine.wait();
    Audit audit;
    audit.run = readRunDirectory(dir);
    for (const auto& r : audit.run.events) {
        if (r.value("type", "") == "op_dtypes" && r["step"] == 1) audit.ops = opDtypesRecordFromJson(r);
        if (r.value("type", "") == "memory" && r["step"] == 1) audit.memory = memoryRecordFromJson(r);
    }
    return audit;
}

const OpDtype* findOp(const OpDtypesRecord& record, const std::string& layer, const std::string& op) {
    for (const auto& l : record.layers)
        if (l.layer == layer)
            for (const auto& o : l.ops)
                if (o.op == op) return &o;
    return nullptr;
}

QString describe(const OpDtypesRecord& record) {
    return QString::fromStdString(toJson(record).dump());
}

// The mlp's layer outputs for one batch of 32: fc1 16, act1 16, fc2 16, act2 16, out 3.
constexpr int64_t kOutputElements = 32 * (16 + 16 + 16 + 16 + 3);

}  // namespace

class OpAuditTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fp32RunsEveryOpInFloat32() {
        const auto audit = runAudit(spirals("fp32"));
        const auto& ops = audit.ops;
        QCOMPARE(ops.step, int64_t(1));
        QStringList layers;
        for (const auto& l : ops.layers) layers << QString::fromStdString(l.layer);
        QCOMPARE(layers, QStringList({"fc1", "act1", "fc2", "act2", "out", "loss"}));
        for (const auto& l : ops.layers) {
            QVERIFY2(!l.ops.empty(), l.layer.c_str());
            for (const auto& o : l.ops) {
                QCOMPARE(QString::fromStdString(o.input), QString("float32"));
                QCOMPARE(QString::fromStdString(o.output), QString("float32"));
                QVERIFY(!o.emulated);
            }
        }
        const OpDtype* linear = findOp(ops, "fc1", "linear");
        QVERIFY2(linear, qPrintable(describe(ops)));
        QCOMPARE(QString::fromStdString(linear->weight), QString("float32"));
        QVERIFY2(findOp(ops, "act1", "relu"), qPrintable(describe(ops)));
        QVERIFY2(findOp(ops, "loss", "cross_entropy_loss"), qPrintable(describe(ops)));
        // Only the outermost op: linear's addmm is its implementation.
        QVERIFY2(ops.layers[0].ops.size() == 1, qPrintable(describe(ops)));
        // Probe steps only: steps 1 and 2 of 3.
        int records = 0;
        for (const auto& r : audit.run.events) records += r.value("type", "") == "op_dtypes";
        QCOMPARE(records, 2);
    }

    void bf16AutocastCastsTheLinearsToBfloat16() {
        const auto audit = runAudit(spirals("bf16"));
        const auto& ops = audit.ops;
        for (const char* layer : {"fc1", "fc2", "out"}) {
            const OpDtype* linear = findOp(ops, layer, "linear");
            QVERIFY2(linear, qPrintable(describe(ops)));
            // The inputs arrive in float32 (fc1) but autocast runs the op in bfloat16.
            QCOMPARE(QString::fromStdString(linear->input), QString("bfloat16"));
            QCOMPARE(QString::fromStdString(linear->weight), QString("bfloat16"));
            QCOMPARE(QString::fromStdString(linear->output), QString("bfloat16"));
            QVERIFY(!linear->emulated);
        }
        // ReLU runs in the dtype it is given.
        QCOMPARE(QString::fromStdString(findOp(ops, "act1", "relu")->output), QString("bfloat16"));
        // The loss: CPU autocast lists it among the ops it runs in float32.
        const OpDtype* loss = findOp(ops, "loss", "cross_entropy_loss");
        QVERIFY2(loss, qPrintable(describe(ops)));
        QCOMPARE(QString::fromStdString(loss->input), QString("float32"));
        QCOMPARE(QString::fromStdString(loss->output), QString("float32"));
    }

    void emulatedFp16ReportsFloat16ValuesHeldInFloat32() {
        const auto audit = runAudit(spirals("fp16"));
        const OpDtype* linear = findOp(audit.ops, "fc2", "linear");
        QVERIFY2(linear, qPrintable(describe(audit.ops)));
        QVERIFY(linear->emulated);
        QCOMPARE(QString::fromStdString(linear->emulatedAs), QString("float16"));
        QCOMPARE(QString::fromStdString(linear->input), QString("float16"));
        QCOMPARE(QString::fromStdString(linear->weight), QString("float16"));
        QCOMPARE(QString::fromStdString(linear->output), QString("float16"));
        const auto json = toJson(audit.ops);
        QCOMPARE(json["layers"][2]["ops"][0]["storage"].get<std::string>(), std::string("float32"));
        // Outside the matmuls nothing is rounded: the loss is plain float32.
        const OpDtype* loss = findOp(audit.ops, "loss", "cross_entropy_loss");
        QVERIFY(loss && !loss->emulated);
        QCOMPARE(QString::fromStdString(loss->input), QString("float32"));
    }

    void keptLayerStaysFloat32() {
        auto config = spirals("fp16");
        config.precision.keep_fp32 = {"fc1"};
        const auto audit = runAudit(config);
        const OpDtype* kept = findOp(audit.ops, "fc1", "linear");
        QVERIFY2(kept, qPrintable(describe(audit.ops)));
        QVERIFY(!kept->emulated);
        QCOMPARE(QString::fromStdString(kept->input), QString("float32"));
        QCOMPARE(QString::fromStdString(kept->weight), QString("float32"));
        QCOMPARE(QString::fromStdString(kept->output), QString("float32"));
        QVERIFY(findOp(audit.ops, "fc2", "linear")->emulated);

        auto bf16 = spirals("bf16");
        bf16.precision.keep_fp32 = {"out"};
        const auto real = runAudit(bf16);
        QCOMPARE(QString::fromStdString(findOp(real.ops, "out", "linear")->input), QString("float32"));
        QCOMPARE(QString::fromStdString(findOp(real.ops, "fc2", "linear")->input), QString("bfloat16"));
    }

    void activationBytesByDtype() {
        // fp32: every output 4 bytes an element.
        const auto fp32 = runAudit(spirals("fp32")).memory;
        QCOMPARE(fp32.usage.activationBytes, (std::map<std::string, int64_t>{{"float32", kOutputElements * 4}}));
        QCOMPARE(fp32.usage.activationBytesReal, fp32.usage.activationBytes);
        // Real bf16 autocast: the linears give bfloat16 and ReLU keeps it, so half the bytes.
        const auto bf16 = runAudit(spirals("bf16")).memory;
        QCOMPARE(bf16.usage.activationBytes, (std::map<std::string, int64_t>{{"bfloat16", kOutputElements * 2}}));
        QCOMPARE(bf16.usage.activationBytesReal, bf16.usage.activationBytes);
        // Emulated fp16: stored as float32, but real fp16 would hold every output in 2 bytes.
        const auto fp16 = runAudit(spirals("fp16")).memory;
        QCOMPARE(fp16.usage.activationBytes, (std::map<std::string, int64_t>{{"float32", kOutputElements * 4}}));
        QCOMPARE(fp16.usage.activationBytesReal, (std::map<std::string, int64_t>{{"float16", kOutputElements * 2}}));
        // A layer kept in fp32 is stored and counted as float32 either way (fc1 and
        // the ReLU after it; the ReLU of an fp32 value is not an fp16 value).
        auto keep = spirals("fp16");
        keep.precision.keep_fp32 = {"fc1", "act1"};
        const auto kept = runAudit(keep).memory;
        QCOMPARE(kept.usage.activationBytesReal,
                 (std::map<std::string, int64_t>{{"float16", 32 * (16 + 16 + 3) * 2}, {"float32", 32 * 32 * 4}}));
    }

    void processMemoryIsReported() {
        const auto audit = runAudit(spirals("fp32"));
        const auto& m = audit.memory.usage;
        QVERIFY(m.rssBytes > 0);
        QVERIFY(m.peakRssBytes >= m.rssBytes);
        QVERIFY(!m.cudaPeakAllocatedBytes.has_value());  // CPU run
        QVERIFY(audit.run.events.size() > 0);
        for (const auto& r : audit.run.events)
            if (r.value("type", "") == "memory") QVERIFY(r["cuda_peak_allocated_bytes"].is_null());
    }

    void recordsRoundTrip() {
        OpDtypesRecord ops{5, {{"fc1", {{"linear", "float16", "float16", "float16", true, "float16"}}},
                               {"loss", {{"cross_entropy_loss", "float32", "", "float32", false, ""}}}}};
        const auto back = opDtypesRecordFromJson(toJson(ops));
        QCOMPARE(back.step, int64_t(5));
        QCOMPARE(back.layers.size(), size_t(2));
        QVERIFY(back.layers[0].ops[0].emulated);
        QCOMPARE(QString::fromStdString(back.layers[0].ops[0].emulatedAs), QString("float16"));
        QVERIFY(back.layers[1].ops[0].weight.empty());
        QVERIFY(!toJson(ops)["layers"][1]["ops"][0].contains("weight"));

        MemoryRecord memory{5, {100, 200, int64_t(300), {{"float32", 8}}, {{"float16", 4}}}};
        const auto m = memoryRecordFromJson(toJson(memory));
        QCOMPARE(m.usage.rssBytes, int64_t(100));
        QCOMPARE(m.usage.peakRssBytes, int64_t(200));
        QCOMPARE(*m.usage.cudaPeakAllocatedBytes, int64_t(300));
        QCOMPARE(m.usage.activationBytesReal.at("float16"), int64_t(4));
        QVERIFY_THROWS_EXCEPTION(ProbeRecordError,
                                 memoryRecordFromJson(nlohmann::json{{"type", "memory"}, {"step", 1}}));
    }
};

QTEST_GUILESS_MAIN(OpAuditTest)
#include "test_op_audit.moc"
