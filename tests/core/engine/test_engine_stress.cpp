// The engine under commands at random moments and under an allocation failure:
// every run ends (no deadlock), in a state that says how, with a run directory that
// loads and agrees with the summary; an out-of-memory error is an error event, and
// the next run in the same process trains normally.
#include <QtCore/QRandomGenerator>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "engine/Engine.h"
#include "run/RunReader.h"

using namespace ampscope;

namespace {

// How long a run may take to end before the test calls it a hang: far beyond any
// machine's speed, under the suite's CTest timeout.
constexpr double kHangSeconds = 120.0;

RunConfig smallSpirals() {
    RunConfig c = test::spiralsMlpConfig(256, {16, 16}, 16);  // 12 steps per epoch
    c.train.epochs = 100;
    c.probes.every = 3;  // probe steps too, so a command can land inside one
    return c;
}

int64_t countType(const RunData& run, const std::string& type) {
    int64_t n = 0;
    for (const auto& e : run.events) n += e.value("type", "") == type;
    return n;
}

std::vector<EngineEvent> drainEvents(Engine& engine) {
    std::vector<EngineEvent> events;
    const DrainedMetrics d = engine.stream().drain();
    events.insert(events.end(), d.events.begin(), d.events.end());
    return events;
}

}  // namespace

class EngineStressTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Each round starts a run and, at random moments (including the first
    // milliseconds, while the data loads, and inside probe steps), pauses, single-steps,
    // resumes and finally stops it. Every round must end as "stopped" (or "finished"),
    // with a summary whose step count equals the step records. The waits only bound a
    // hang (a stop takes effect within a step; sanitizers on 2 cores make steps slow).
    void commandsAtRandomMomentsAlwaysEndCleanly() {
        QRandomGenerator random(20261121);
        const int rounds = 25;
        for (int round = 0; round < rounds; ++round) {
            QTemporaryDir dir;
            const std::string runDir = dir.filePath("run").toStdString();
            Engine engine(smallSpirals(), runDir);
            engine.start();
            const int commands = 1 + static_cast<int>(random.bounded(4));
            for (int c = 0; c < commands; ++c) {
                QThread::msleep(random.bounded(40));
                switch (random.bounded(3)) {
                    case 0: engine.pause(); break;
                    case 1: engine.stepOnce(); break;
                    default: engine.resume(); break;
                }
            }
            QThread::msleep(random.bounded(30));
            engine.stop();
            QVERIFY2(engine.waitFor(kHangSeconds), qPrintable(QString("round %1 did not end").arg(round)));
            const EngineState state = engine.state();
            QVERIFY2(state == EngineState::Stopped || state == EngineState::Finished,
                     qPrintable(QString("round %1 ended %2").arg(round).arg(engineStateName(state))));
            const RunSummary summary = engine.summary();
            const RunData run = readRunDirectory(runDir);
            QVERIFY2(run.complete, qPrintable(QString("round %1: no summary.json").arg(round)));
            QCOMPARE(countType(run, "step"), summary.steps);
            QCOMPARE((*run.summary).value("steps", int64_t{-1}), summary.steps);
            QCOMPARE(QString::fromStdString((*run.summary).value("status", std::string())),
                     QString::fromStdString(summary.status));
            QVERIFY(run.warnings.empty());
        }
    }

    // Destroying an engine at a random moment (the window closing) stops and joins it:
    // once the destructor returns, the run directory is complete and says how it ended.
    // (A destructor that never returned would hang the suite until CTest's timeout.)
    void destructionAtRandomMomentsJoins() {
        QRandomGenerator random(7);
        for (int round = 0; round < 15; ++round) {
            QTemporaryDir dir;
            const std::string runDir = dir.filePath("run").toStdString();
            {
                Engine engine(smallSpirals(), runDir);
                engine.start();
                QThread::msleep(random.bounded(50));
                if (random.bounded(2)) engine.pause();
            }
            const RunData run = readRunDirectory(runDir);
            QVERIFY2(run.complete, qPrintable(QString("round %1: no summary.json after the destructor").arg(round)));
            const std::string status = (*run.summary).value("status", std::string());
            QVERIFY2(status == "stopped" || status == "finished",
                     qPrintable(QString("round %1 ended %2").arg(round).arg(QString::fromStdString(status))));
            QCOMPARE(countType(run, "step"), (*run.summary).value("steps", int64_t{-1}));
        }
    }

    // An allocation that fails inside a step (the alloc_failure fault throws
    // std::bad_alloc in fc2's forward at step 4) ends the run as an error that says
    // "out of memory", records what came before, and the process trains on.
    void allocationFailureIsAnErrorEventAndTheNextRunTrains() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("oom").toStdString();
        RunConfig config = smallSpirals();
        config.faults = {{4, "alloc_failure", "fc2", 1.0}};
        Engine engine(config, runDir);
        engine.start();
        QVERIFY(engine.waitFor(kHangSeconds));
        QCOMPARE(engine.state(), EngineState::Failed);
        const RunSummary summary = engine.summary();
        QCOMPARE(QString::fromStdString(summary.status), QString("error"));
        QVERIFY2(QString::fromStdString(summary.error).startsWith("out of memory"),
                 summary.error.c_str());
        QVERIFY2(summary.error.find("after 3 completed steps") != std::string::npos,
                 summary.error.c_str());
        bool errorEvent = false;
        for (const auto& e : drainEvents(engine))
            if (e.kind == EngineEvent::Kind::Error) {
                errorEvent = true;
                QVERIFY(!e.inputError);
                QVERIFY(QString::fromStdString(e.message).startsWith("out of memory"));
            }
        QVERIFY(errorEvent);
        const RunData run = readRunDirectory(runDir);
        QVERIFY(run.complete);
        QCOMPARE(countType(run, "step"), int64_t{3});
        QCOMPARE(countType(run, "error"), int64_t{1});
        QCOMPARE(countType(run, "fault"), int64_t{1});

        RunConfig next = smallSpirals();
        next.train.epochs = 1;
        Engine again(next, std::string());
        again.start();
        QVERIFY(again.waitFor(kHangSeconds));
        QCOMPARE(again.state(), EngineState::Finished);
        QCOMPARE(again.summary().steps, int64_t{12});  // 192 training samples / 16
    }
};

QTEST_GUILESS_MAIN(EngineStressTest)
#include "test_engine_stress.moc"
