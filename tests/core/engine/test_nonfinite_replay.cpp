// Locating the first NaN/Inf by replaying the step that went non-finite finds the
// same event as checking every layer on every step: for every fault kind, every
// precision mode and a model with BatchNorm. The replay must leave training exactly
// as it was (the same loss on every step, the same faults recorded once), and a
// clean run must never replay.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "RunSupport.h"
#include "config/ConfigJson.h"
#include "engine/Engine.h"

using namespace ampscope;
using ampscope::test::recordsOf;
using ampscope::test::runAndRead;

namespace {

RunConfig spirals(const std::string& mode, const std::string& locate) {
    RunConfig c = test::spiralsMlp(mode);
    c.train.max_steps = 8;
    // Step 1 and step 6 are probe steps: a fault at step 6 is found by the probe
    // step's own checks, every other one by a replay.
    c.probes.every = 6;
    c.probes.locate_nonfinite = locate;
    return c;
}

struct Located {
    RunData run;
    nlohmann::json event;  // the nonfinite record, or null
};

Located runWith(const RunConfig& config, QTemporaryDir& tmp, const char* name) {
    Located out{runAndRead(config, tmp, name), nullptr};
    const auto events = recordsOf(out.run, "nonfinite");
    if (!events.empty()) out.event = events.front();
    return out;
}

// Every step's loss as written: a non-finite one is null with a "loss_nonfinite" tag,
// kept here as its text so that a NaN step compares equal to a NaN step.
std::vector<std::string> stepLosses(const RunData& run) {
    std::vector<std::string> losses;
    for (const auto& r : recordsOf(run, "step"))
        losses.push_back(r["loss"].is_null() ? r.value("loss_nonfinite", std::string("null")) : r["loss"].dump());
    return losses;
}

// The fields that say where the event is and what it held.
const char* const kLocationFields[] = {"step",   "layer", "layer_index", "phase", "tensor",
                                       "nan",    "pos_inf", "neg_inf",   "numel"};

}  // namespace

class NonFiniteReplayTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(1); }

    void replayFindsWhatEveryStepChecksFind_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("norm");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("layer");
        QTest::addColumn<int>("step");
        QTest::addColumn<bool>("dropped");  // the value may never reach the loss or a parameter gradient
        struct Fault {
            const char* kind;
            const char* layer;
            int step;
        };
        // nan_grad at act1 lands where the ReLU's input was negative: its backward
        // zeroes it, so no parameter gradient and no loss ever holds it.
        const Fault faults[] = {{"inf_grad", "fc2", 3},       {"nan_grad", "act1", 4},
                                {"nan_grad", "fc1", 4},
                                {"nan_activation", "fc1", 3}, {"inf_activation", "out", 5},
                                {"scale_loss", "", 4},        {"nan_activation", "fc2", 6}};
        for (const char* mode : {"fp32", "tf32", "fp16", "bf16", "fp16-pure", "bf16-pure"})
            for (const auto& f : faults)
                QTest::newRow(qPrintable(QString("%1 %2 at %3 step %4").arg(mode, f.kind, f.layer).arg(f.step)))
                    << mode << "none" << f.kind << f.layer << f.step << (QString(f.layer) == "act1");
        // The format modes carry state from step to step: delayed scaling's amax
        // histories and the stochastic-rounding generator. The replay must run with the
        // step's own and leave them as the step did, or every later step would differ.
        for (const char* mode : {"fp8", "nvfp4-stochastic"})
            for (const auto& f : {faults[3], faults[5]})
                QTest::newRow(qPrintable(QString("%1 %2 at %3 step %4").arg(mode, f.kind, f.layer).arg(f.step)))
                    << mode << "none" << f.kind << f.layer << f.step << false;
        // BatchNorm: the replay updates the running statistics again; they must be put
        // back, or the evaluation and every later step would differ.
        for (const char* mode : {"fp32", "fp16", "bf16"})
            QTest::newRow(qPrintable(QString("%1 batch norm nan_grad at norm1").arg(mode)))
                << mode << "batch" << "nan_grad" << "norm1" << 3 << false;
    }
    void replayFindsWhatEveryStepChecksFind() {
        QFETCH(QString, mode);
        QFETCH(QString, norm);
        QFETCH(QString, kind);
        QFETCH(QString, layer);
        QFETCH(int, step);
        QFETCH(bool, dropped);
        QTemporaryDir tmp;
        const bool stochastic = mode == "nvfp4-stochastic";
        auto always = spirals(stochastic ? "nvfp4" : mode.toStdString(), "always");
        always.precision.nvfp4.stochastic_gradients = stochastic;
        // A history of two amaxes: a replay that recorded its amaxes again would push the
        // step before out of it and change the next step's scales.
        always.precision.fp8.amax_history_len = 2;
        always.model.norm = norm.toStdString();
        always.faults = {FaultConfig{step, kind.toStdString(), layer.toStdString(), kind == "scale_loss" ? 1e30 : 1.0}};
        auto replay = always;
        replay.probes.locate_nonfinite = "replay";

        const Located a = runWith(always, tmp, "always");
        const Located b = runWith(replay, tmp, "replay");

        // Training is untouched by the replay: every step's loss is the same number.
        QCOMPARE(stepLosses(b.run).size(), stepLosses(a.run).size());
        const auto lossesA = stepLosses(a.run), lossesB = stepLosses(b.run);
        for (size_t k = 0; k < lossesA.size(); ++k)
            QVERIFY2(lossesA[k] == lossesB[k], qPrintable(QString("step %1: %2 vs %3")
                                                               .arg(k + 1)
                                                               .arg(QString::fromStdString(lossesA[k]),
                                                                    QString::fromStdString(lossesB[k]))));
        QCOMPARE(recordsOf(b.run, "fault").size(), recordsOf(a.run, "fault").size());
        // The evaluation after the epoch sees the same weights and BatchNorm statistics.
        QCOMPARE(recordsOf(b.run, "epoch").front()["val_loss"], recordsOf(a.run, "epoch").front()["val_loss"]);

        // A step is replayed when what it reads anyway says non-finite: the loss, the
        // scaler's found-inf or the gradient norm.
        bool reachedTraining = false;
        for (const auto& r : recordsOf(a.run, "step"))
            reachedTraining = reachedTraining || !r["loss"].is_number() || !r["grad_norm"].is_number() ||
                              r.value("found_inf", false);
        if (!a.event.is_null() && !reachedTraining) {
            // The one difference, by design: a non-finite value that a later operation
            // drops before it reaches the loss or any parameter's gradient (a ReLU's
            // backward where its input was negative) changes nothing in training, and a
            // clean step is not replayed to look for it. Whether the ReLU drops it
            // depends on the numbers, so only that row may end here.
            QVERIFY2(dropped, "a non-finite value that never reached the loss or a gradient");
            QCOMPARE(a.event["phase"].get<std::string>(), std::string("backward"));
            QVERIFY(b.event.is_null());
            return;
        }
        QCOMPARE(b.event.is_null(), a.event.is_null());
        if (a.event.is_null()) {
            // Only a loss multiplier too small to overflow this mode leaves no event.
            QCOMPARE(kind, QString("scale_loss"));
            return;
        }
        for (const char* field : kLocationFields)
            QVERIFY2(a.event[field] == b.event[field],
                     qPrintable(QString("%1: always %2, replay %3")
                                    .arg(field, QString::fromStdString(a.event[field].dump()),
                                         QString::fromStdString(b.event[field].dump()))));
        QCOMPARE(QString::fromStdString(a.event["located_by"].get<std::string>()), QString("check"));
        const bool probeStep = a.event["step"].get<int>() == 1 || a.event["step"].get<int>() % 6 == 0;
        QCOMPARE(QString::fromStdString(b.event["located_by"].get<std::string>()),
                 probeStep ? QString("check") : QString("replay"));
        QCOMPARE(b.event["replay_missed_step"].get<int>(), 0);
        // The event step's own frame is there, last, in both.
        QVERIFY(!b.event["frames"].empty());
        QCOMPARE(b.event["frames"].back()["step"], a.event["step"]);
        QCOMPARE(b.event["frames"].back(), a.event["frames"].back());
    }

    void framesByReplayAreTheProbeStepsAndTheEventStep() {
        QTemporaryDir tmp;
        auto config = spirals("fp32", "replay");
        config.probes.every = 2;
        config.train.max_steps = 12;
        config.faults = {FaultConfig{9, "nan_activation", "fc2", 1.0}};
        const Located r = runWith(config, tmp, "run");
        QVERIFY(!r.event.is_null());
        QCOMPARE(r.event["step"].get<int>(), 9);
        std::vector<int> steps;
        for (const auto& frame : r.event["frames"]) steps.push_back(frame["step"].get<int>());
        QCOMPARE(steps, (std::vector<int>{1, 2, 4, 6, 8, 9}));
    }

    void cleanRunsNeverReplayAndLoseNoFrames() {
        // A clean run records no event; its steps' losses equal those of a run
        // with every step checked, and of one with the locator off.
        QTemporaryDir tmp;
        const auto replay = runWith(spirals("fp16", "replay"), tmp, "replay");
        const auto always = runWith(spirals("fp16", "always"), tmp, "always");
        const auto off = runWith(spirals("fp16", "off"), tmp, "off");
        QVERIFY(replay.event.is_null());
        QCOMPARE(stepLosses(replay.run), stepLosses(always.run));
        QCOMPARE(stepLosses(replay.run), stepLosses(off.run));
    }

    void configsWrittenWithABooleanStillLoad() {
        nlohmann::json document = configToJson(RunConfig{});
        document["probes"]["locate_nonfinite"] = true;
        QCOMPARE(QString::fromStdString(configFromJson(document).probes.locate_nonfinite), QString("always"));
        document["probes"]["locate_nonfinite"] = false;
        QCOMPARE(QString::fromStdString(configFromJson(document).probes.locate_nonfinite), QString("off"));
        document["probes"]["locate_nonfinite"] = "sometimes";
        try {
            configFromJson(document);
            QFAIL("an unknown mode was accepted");
        } catch (const std::exception& e) {
            QVERIFY2(QString(e.what()).contains("probes.locate_nonfinite"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(NonFiniteReplayTest)
#include "test_nonfinite_replay.moc"
