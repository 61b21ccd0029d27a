// Lock-step A/B: a second model B in another mode, from the same initial
// weights, on the same batches. With B's mode equal to A's the two repeat
// each other bit for bit (loss_diff +0, cosine 1 at every compared step); with fp32
// as B, B is exactly a plain fp32 run of the same seed (its losses equal that
// run's step by step), and fp16 A agrees with it closely but not exactly.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "config/ConfigJson.h"
#include "config/ConfigValidation.h"
#include "engine/Engine.h"
#include "probes/ComparisonRecords.h"
#include "run/RunReader.h"
#include "ExactCompare.h"
#include "RunSupport.h"
#include "TestSupport.h"

using namespace ampscope;

namespace {

using test::recordsOf;
using test::runAndRead;
using test::stepLosses;

RunConfig spirals(const std::string& mode) { return test::probedSpiralsConfig(mode, 2); }

std::vector<LockstepRecord> lockstepRecords(const RunData& run) {
    std::vector<LockstepRecord> out;
    for (const auto& r : recordsOf(run, "lockstep")) out.push_back(lockstepRecordFromJson(r));
    return out;
}

}  // namespace

class LockstepTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameModeRepeatsTheRunExactly_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("fp16 emulated, dynamic scaler") << "fp16";
        QTest::newRow("bf16 real autocast") << "bf16";
        QTest::newRow("fp32") << "fp32";
    }
    void sameModeRepeatsTheRunExactly() {
        QFETCH(QString, mode);
        QTemporaryDir tmp;
        auto config = spirals(mode.toStdString());
        const RunData alone = runAndRead(config, tmp, "alone");
        config.lockstep.mode = mode.toStdString();
        const RunData run = runAndRead(config, tmp, "lockstep");
        const auto records = lockstepRecords(run);
        QCOMPARE(records.size(), size_t(12));  // 384 training samples / 32: one per step
        for (size_t i = 0; i < records.size(); ++i) {
            const auto& r = records[i];
            QCOMPARE(r.step, int64_t(i + 1));
            QCOMPARE(QString::fromStdString(r.mode), mode);
            QCOMPARE_BITS(r.lossDiff, 0.0);
            QVERIFY(!r.skipped);
            const bool probeStep = r.step == 1 || r.step % 2 == 0;
            QCOMPARE(r.layers.empty(), !probeStep);
            for (const auto& c : r.layers) {
                QCOMPARE_BITS(c.cosine, 1.0);
                QCOMPARE_BITS(c.relError, 0.0);
                QCOMPARE(c.lost, int64_t(0));
            }
        }
        // B costs a second step, and changes nothing about A.
        QCOMPARE(stepLosses(run), stepLosses(alone));
        const auto& summary = (*run.summary)["lockstep"];
        QCOMPARE(QString::fromStdString(summary["mode"].get<std::string>()), mode);
        QCOMPARE_BITS(summary["final_loss"].get<double>(), (*run.summary)["final_train_loss"].get<double>());
        QCOMPARE_BITS(summary["mean_cosine_per_layer"]["fc1"].get<double>(), 1.0);
        QCOMPARE(summary["steps_per_layer"]["out"].get<int>(), 7);  // steps 1, 2, 4, ..., 12
    }

    void fp16AgainstFp32() {
        QTemporaryDir tmp;
        auto config = spirals("fp16");
        config.probes.every = 1;
        config.lockstep.mode = "fp32";
        const RunData run = runAndRead(config, tmp, "ab");
        const RunData fp32 = runAndRead(spirals("fp32"), tmp, "fp32");
        const RunData fp16 = runAndRead(spirals("fp16"), tmp, "fp16");
        const auto records = lockstepRecords(run);
        const auto fp32Losses = stepLosses(fp32);
        const auto mainLosses = stepLosses(run);
        QCOMPARE(records.size(), fp32Losses.size());
        QCOMPARE(mainLosses, stepLosses(fp16));  // A is the plain fp16 run
        bool someDifference = false;
        for (size_t i = 0; i < records.size(); ++i) {
            // B is a plain fp32 run of the same seed: same initial weights, same batches.
            QCOMPARE_BITS(records[i].loss, fp32Losses[i]);
            QCOMPARE_BITS(records[i].lossDiff, mainLosses[i] - fp32Losses[i]);
            QVERIFY(std::abs(records[i].lossDiff) < 0.05);
            QCOMPARE(records[i].layers.size(), size_t(3));
            for (const auto& c : records[i].layers) {
                if (i < 5) QVERIFY2(c.cosine > 0.9, qPrintable(QString::number(c.cosine)));
                QVERIFY2(c.cosine < 1.0, qPrintable(QString::number(c.cosine)));
                someDifference = someDifference || c.relError > 0;
            }
        }
        QVERIFY(someDifference);
        const auto& summary = (*run.summary)["lockstep"];
        QCOMPARE(summary["mode"].get<std::string>(), std::string("fp32"));
        QCOMPARE_BITS(summary["final_loss"].get<double>(), (*fp32.summary)["final_train_loss"].get<double>());
        for (const char* layer : {"fc1", "fc2", "out"}) {
            const double mean = summary["mean_cosine_per_layer"][layer].get<double>();
            QVERIFY2(mean > 0.9 && mean < 1.0, layer);
        }
    }

    void partnerGetsItsOwnScaler() {
        // fp32 A with B in fp16: B resolves "auto" to a dynamic scaler of its own;
        // a pure fp16 B gets none (PyTorch refuses fp16 gradients), so the run works.
        QTemporaryDir tmp;
        auto config = spirals("fp32");
        config.train.max_steps = 3;
        config.lockstep.mode = "fp16-pure";
        const RunData run = runAndRead(config, tmp, "pure");
        QCOMPARE(QString::fromStdString((*run.summary)["status"].get<std::string>()), QString("finished"));
        QCOMPARE(lockstepRecords(run).size(), size_t(3));
    }

    void configFieldIsValidatedAndOverridable() {
        RunConfig config = spirals("fp16");
        config.lockstep.mode = "fp6";
        const auto problems = validateConfig(config);
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(QString::fromStdString(problems[0].field), QString("lockstep.mode"));
        config.lockstep.mode = "";
        QVERIFY(validateConfig(config).empty());
        nlohmann::json document = configToJson(config);
        QCOMPARE(document["lockstep"]["mode"].get<std::string>(), std::string(""));
        document["lockstep"]["mode"] = "bf16";
        QCOMPARE(QString::fromStdString(configFromJson(document).lockstep.mode), QString("bf16"));
    }

    void recordRoundTrips() {
        LockstepRecord r{4, "fp32", 0.5, -0.25, true, {{"fc1", 0.125, 0.9921875, 0, 10, 12}}};
        const auto back = lockstepRecordFromJson(toJson(r));
        QCOMPARE(back.step, int64_t(4));
        QCOMPARE_BITS(back.loss, 0.5);
        QCOMPARE_BITS(back.lossDiff, -0.25);
        QVERIFY(back.skipped);
        QCOMPARE_BITS(back.layers[0].cosine, 0.9921875);
        LockstepRecord plain{5, "bf16", 1.0, 0.0, false, {}};
        QVERIFY(!toJson(plain).contains("layers"));
    }
};

QTEST_GUILESS_MAIN(LockstepTest)
#include "test_lockstep.moc"
