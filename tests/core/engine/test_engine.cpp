// The engine thread: commands from another thread (pause, single step, resume,
// stop), recording, errors as events, NaN as a result.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "engine/Engine.h"
#include "run/RunReader.h"

using namespace ampscope;

namespace {

RunConfig spiralsConfig(int64_t epochs = 200) {
    RunConfig c = test::spiralsMlpConfig(512, {32, 32});
    c.train.epochs = epochs;
    return c;
}

std::vector<StepMetrics> drainSteps(Engine& engine, std::vector<EngineEvent>* events = nullptr) {
    auto d = engine.stream().drain();
    if (events) events->insert(events->end(), d.events.begin(), d.events.end());
    return d.steps;
}

// Drains until at least `count` steps arrived (or the timeout); returns how many.
size_t collectSteps(Engine& engine, size_t count, int timeoutMs = 10000) {
    QElapsedTimer timer;
    timer.start();
    size_t got = 0;
    while (got < count && timer.elapsed() < timeoutMs) {
        got += drainSteps(engine).size();
        if (got < count) QThread::msleep(5);
    }
    return got;
}

bool waitForState(Engine& engine, EngineState state, int timeoutMs = 20000) {
    QElapsedTimer timer;
    timer.start();
    while (engine.state() != state) {
        if (timer.elapsed() > timeoutMs) return false;
        QThread::msleep(5);
    }
    return true;
}

int64_t countType(const RunData& run, const std::string& type) {
    int64_t n = 0;
    for (const auto& e : run.events) n += e.value("type", "") == type;
    return n;
}

}  // namespace

class EngineTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsToTheEndAndRecords() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("run").toStdString();
        auto config = spiralsConfig(3);
        Engine engine(config, runDir);
        engine.start();
        engine.wait();
        const auto summary = engine.summary();
        QCOMPARE(QString::fromStdString(summary.status), QString("finished"));
        QCOMPARE(summary.epochs, int64_t(3));
        QCOMPARE(summary.steps, int64_t(3 * 12));  // 384 training samples / 32
        QVERIFY(summary.valAccuracy > 0.0 && summary.valAccuracy <= 1.0);
        const RunData run = readRunDirectory(runDir);
        QVERIFY(run.complete);
        QCOMPARE(countType(run, "step"), int64_t(36));
        QCOMPARE(countType(run, "epoch"), int64_t(3));
        QCOMPARE(run.summary->value("steps", 0), 36);
        QCOMPARE(QString::fromStdString((*run.summary)["precision"].value("mode", "")), QString("fp32"));
    }

    void pauseStepResumeStopFromAnotherThread() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("run").toStdString();
        Engine engine(spiralsConfig(), runDir);
        engine.pause();  // paused before the first step
        engine.start();
        QVERIFY(waitForState(engine, EngineState::Paused));
        QThread::msleep(100);
        std::vector<EngineEvent> events;
        QCOMPARE(drainSteps(engine, &events).size(), size_t(0));

        engine.stepOnce();
        QCOMPARE(collectSteps(engine, 1), size_t(1));
        QThread::msleep(100);
        QCOMPARE(drainSteps(engine).size(), size_t(0));  // exactly one step
        engine.stepOnce();
        engine.stepOnce();
        QCOMPARE(collectSteps(engine, 2), size_t(2));
        QThread::msleep(100);
        QCOMPARE(drainSteps(engine).size(), size_t(0));

        engine.resume();
        QVERIFY(waitForState(engine, EngineState::Running));
        QVERIFY(collectSteps(engine, 6) >= 6);
        engine.stop();
        QVERIFY(engine.waitFor(10.0));
        QCOMPARE(engine.state(), EngineState::Stopped);
        const auto summary = engine.summary();
        QCOMPARE(QString::fromStdString(summary.status), QString("stopped"));

        // Stopped mid-run: events.jsonl is whole and summary.json says stopped.
        const RunData run = readRunDirectory(runDir);
        QCOMPARE(countType(run, "step"), summary.steps);
        QVERIFY(run.warnings.empty());
        QCOMPARE(QString::fromStdString(run.summary->value("status", "")), QString("stopped"));
    }

    void stopIsHonouredWithinOneStep() {
        for (int attempt = 0; attempt < 5; ++attempt) {
            Engine engine(spiralsConfig(), "");
            engine.start();
            QThread::msleep(20 + attempt * 17);
            engine.stop();
            QVERIFY(engine.waitFor(5.0));
        }
    }

    void badInputBecomesAnErrorEvent() {
        auto config = spiralsConfig(1);
        config.data.dataset = "mnist_idx";
        config.data.path = "/nonexistent/dir";
        Engine engine(config, "");
        engine.start();
        engine.wait();
        const auto drained = engine.stream().drain();
        QVERIFY(!drained.events.empty());
        const auto& last = drained.events.back();
        QCOMPARE(last.kind, EngineEvent::Kind::Error);
        QVERIFY(last.inputError);
        QVERIFY2(QString::fromStdString(last.message).contains("/nonexistent/dir"), last.message.c_str());
        QCOMPARE(engine.state(), EngineState::Failed);
    }

    void nanLossIsAResultNotACrash() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("run").toStdString();
        auto config = spiralsConfig(1);
        config.faults = {FaultConfig{3, "nan_activation", "fc1", 1.0}};
        Engine engine(config, runDir);
        engine.start();
        engine.wait();
        const auto summary = engine.summary();
        QCOMPARE(QString::fromStdString(summary.status), QString("finished"));
        QVERIFY(summary.nonFiniteLosses >= 1);
        const RunData run = readRunDirectory(runDir);
        QCOMPARE(countType(run, "fault"), int64_t(1));
        bool sawNullLoss = false;
        for (const auto& e : run.events)
            if (e.value("type", "") == "step" && e.value("step", 0) == 3)
                sawNullLoss = e["loss"].is_null() && e.value("loss_nonfinite", "") == "nan";
        QVERIFY(sawNullLoss);
    }

    void invalidConfigIsAnInputError() {
        auto config = spiralsConfig(1);
        config.optim.lr = -1;
        Engine engine(config, "");
        engine.start();
        engine.wait();
        const auto summary = engine.summary();
        QCOMPARE(QString::fromStdString(summary.status), QString("error"));
        QVERIFY2(QString::fromStdString(summary.error).startsWith("optim.lr"), summary.error.c_str());
    }
};

QTEST_GUILESS_MAIN(EngineTest)
#include "test_engine.moc"
