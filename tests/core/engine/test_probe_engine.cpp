// Probes inside real runs: the locator finds injected faults where they were
// put, the log-of-a-tiny-sum lesson, exact flush counts under emulation
// against a direct count, and a watchpoint that pauses the engine.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <set>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "engine/Engine.h"
#include "engine/ProbeSession.h"
#include "engine/Trainer.h"
#include "RunSupport.h"
#include "TinyGradientsStep.h"
#include "run/RunReader.h"

using namespace ampscope;

namespace {

RunConfig spirals(const std::string& mode = "fp32") {
    return test::spiralsMlp(mode);
}

RunSummary runToEnd(const RunConfig& config, const std::string& dir = "") {
    Engine engine(config, dir);
    engine.start();
    engine.wait();
    return engine.summary();
}

}  // namespace

class ProbeEngineTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void injectedFaultsAreLocatedExactly_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("layer");
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("phase");
        QTest::addColumn<QString>("tensor");
        QTest::newRow("inf_grad at fc2") << "inf_grad" << "fc2" << 4 << "backward" << "gradient";
        QTest::newRow("nan_grad at act1") << "nan_grad" << "act1" << 2 << "backward" << "gradient";
        QTest::newRow("nan_activation at fc1") << "nan_activation" << "fc1" << 3 << "forward" << "activation";
        QTest::newRow("inf_activation at out") << "inf_activation" << "out" << 5 << "forward" << "activation";
    }
    void injectedFaultsAreLocatedExactly() {
        QFETCH(QString, kind);
        QFETCH(QString, layer);
        QFETCH(int, step);
        QFETCH(QString, phase);
        QFETCH(QString, tensor);
        QTemporaryDir dir;
        auto config = spirals("fp16");
        config.faults = {FaultConfig{step, kind.toStdString(), layer.toStdString(), 1.0}};
        const auto summary = runToEnd(config, dir.filePath("run").toStdString());
        QCOMPARE(QString::fromStdString(summary.status), QString("finished"));
        QVERIFY(summary.firstNonFinite.has_value());
        const auto& e = *summary.firstNonFinite;
        QCOMPARE(e.step, int64_t(step));
        QCOMPARE(QString::fromStdString(e.layer), layer);
        QCOMPARE(QString::fromStdString(e.phase), phase);
        QCOMPARE(QString::fromStdString(e.tensor), tensor);
        QCOMPARE(e.nan + e.posInf + e.negInf, int64_t(1));  // exactly the injected element
        // The run directory holds the event with the frames before it.
        const RunData run = readRunDirectory(dir.filePath("run").toStdString());
        int nonfinite = 0;
        for (const auto& r : run.events)
            if (r.value("type", "") == "nonfinite") {
                ++nonfinite;
                QVERIFY(r["frames"].size() >= std::min<size_t>(step, 2));
            }
        QCOMPARE(nonfinite, 1);
        QVERIFY((*run.summary)["first_nonfinite"].is_object());
    }

    void logOfTinySumGoesInfiniteInFp16AndKeepingTheHeadFixesIt() {
        auto config = spirals("fp16");
        config.model.name = "log_sum";
        const auto broken = runToEnd(config);
        QVERIFY(broken.firstNonFinite.has_value());
        QCOMPARE(QString::fromStdString(broken.firstNonFinite->layer), QString("loss"));
        QCOMPARE(QString::fromStdString(broken.firstNonFinite->phase), QString("forward"));
        QCOMPARE(broken.firstNonFinite->step, int64_t(1));
        QCOMPARE(broken.firstNonFinite->posInf, int64_t(1));

        config.precision.keep_fp32 = {"loss_head"};
        const auto fixed = runToEnd(config);
        QVERIFY(!fixed.firstNonFinite.has_value());
        QVERIFY(std::isfinite(fixed.finalTrainLoss));
        QCOMPARE(fixed.skippedSteps, int64_t(0));

        auto fp32 = spirals("fp32");
        fp32.model.name = "log_sum";
        QVERIFY(!runToEnd(fp32).firstNonFinite.has_value());
    }

    void emulatedFlushCountsEqualADirectCount() {
        // One probed step of a linear model on tiny_gradients in emulated fp16, scaler
        // off, from zero weights: count the weight-gradient elements fp16 flushes, directly.
        test::TinyGradientsStep fixture(test::tinyGradientsLinearFp16());
        QVERIFY(fixture.hasBatch);
        auto& trainer = fixture.trainer;
        auto& probes = fixture.probes;
        const auto& x = fixture.x;
        const auto& y = fixture.y;
        const auto weight = trainer.parameters()[0].detach().clone();
        const auto bias = trainer.parameters()[1].detach().clone();
        probes.beginStep(1);
        trainer.step(x, y);
        const auto snapshot = probes.endStep();
        QVERIFY(snapshot);
        const auto& out = snapshot->layers.back();
        QCOMPARE(QString::fromStdString(out.layer), QString("out"));

        // By hand, as fp16 autocast computes it: rounded operands, rounded output,
        // rounded incoming gradient; the weight gradient before its rounding.
        auto half = [](const torch::Tensor& t) { return t.to(torch::kHalf).to(torch::kFloat); };
        const auto xr = half(x);
        const auto prediction = half(torch::linear(xr, half(weight), half(bias)));
        const auto gradOut = half(2.0 * (prediction - y) / prediction.numel());
        const auto gradWeight = gradOut.t().matmul(xr);
        const auto gradBias = gradOut.sum(0);
        auto flushed = [&](const torch::Tensor& g) {
            return (g.ne(0) & half(g).eq(0)).sum().item<int64_t>();
        };
        const int64_t direct = flushed(gradWeight) + flushed(gradBias);
        qInfo("flushed weight-gradient elements: probe %lld, direct %lld of %lld",
              static_cast<long long>(out.gradClasses.flushed), static_cast<long long>(direct),
              static_cast<long long>(out.gradClasses.total()));
        QVERIFY(out.gradClasses.exact);
        QCOMPARE(out.gradClasses.total(), gradWeight.numel() + gradBias.numel());
        QCOMPARE(out.gradClasses.flushed, direct);
        QVERIFY(direct > out.gradClasses.total() / 2);
    }

    void watchpointPausesOnNonFinite() {
        auto config = spirals("fp16");
        config.train.epochs = 5;
        config.probes.pause_on_nonfinite = true;
        config.faults = {FaultConfig{3, "nan_activation", "fc1", 1.0}};
        Engine engine(config, "");
        engine.start();
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Paused, 20000);
        const auto drained = engine.stream().drain();
        QCOMPARE(drained.steps.back().step, int64_t(3));  // paused right after the hit
        bool explained = false;
        for (const auto& e : drained.events)
            explained = explained || (e.kind == EngineEvent::Kind::Paused &&
                                      QString::fromStdString(e.message).contains("watchpoint"));
        QVERIFY(explained);
        engine.stop();
        QVERIFY(engine.waitFor(10));
    }

    // A live view reads the probe records from the stream, each right after its step,
    // exactly as the run directory has them.
    void probeRecordsReachTheStreamAfterTheirStep() {
        auto config = spirals("fp16");
        config.device = "cpu";  // fp16 emulated: on a GPU fp16 is real, with no exact classes
        config.probes.every = 3;
        Engine engine(config, "");
        engine.start();
        engine.wait();
        const auto drained = engine.stream().drain();
        std::set<std::string> histogramLayers, underflowKinds;
        int updateRatios = 0;
        for (const StreamedRecord& streamed : drained.records) {
            const nlohmann::json& r = streamed.record;
            const std::string type = r.value("type", std::string());
            if (type != "histogram" && type != "underflow" && type != "update_ratio") continue;
            const int64_t step = r.at("step").get<int64_t>();
            QCOMPARE(streamed.afterStep, step);  // written right after the step it measured
            QVERIFY2(step == 1 || step % 3 == 0, qPrintable(QString::number(step)));
            if (type == "histogram") histogramLayers.insert(r.value("layer", std::string()));
            if (type == "underflow") underflowKinds.insert(r.value("kind", std::string()));
            if (type == "update_ratio") ++updateRatios;
        }
        for (const char* layer : {"fc1", "fc2", "out"}) QVERIFY2(histogramLayers.count(layer), layer);
        QVERIFY(underflowKinds.count("param_grad_scaled"));
        QVERIFY(underflowKinds.count("activation_grad"));  // exact under emulation
        QVERIFY(updateRatios > 0);
    }
};

QTEST_GUILESS_MAIN(ProbeEngineTest)
#include "test_probe_engine.moc"
