// The bridge between the engine thread and the window: every record the run directory
// gets reaches the live views too, whichever way the ticks fall between the engine's
// pushes.
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "EngineBridge.h"
#include "TestSupport.h"
#include "run/EventSchema.h"

using namespace ampscope;
using ampscope::ui::EngineBridge;

namespace {

using TypeAndStep = std::pair<std::string, int64_t>;

std::string typeOf(const nlohmann::json& record) {
    const auto it = record.find("type");
    return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t stepOf(const nlohmann::json& record) {
    const auto it = record.find("step");
    return it != record.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

// The records a live view is handed (everything but the steps and epochs, which come as
// StepMetrics/EpochMetrics, and the file's framing).
bool reachesViewsAsRecord(const std::string& type) {
    return type != event_type::kStep && type != event_type::kEpoch &&
           type != event_type::kRunStart && type != event_type::kRunEnd;
}

std::vector<TypeAndStep> recordsOnDisk(const QString& runDirectory) {
    QFile file(runDirectory + QLatin1Char('/') + QString::fromUtf8(kEventsFileName.data()));
    std::vector<TypeAndStep> out;
    if (!file.open(QIODevice::ReadOnly)) return out;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (line.isEmpty()) continue;
        const nlohmann::json record = nlohmann::json::parse(line.toStdString());
        if (reachesViewsAsRecord(typeOf(record))) out.emplace_back(typeOf(record), stepOf(record));
    }
    return out;
}

QString describe(const std::vector<TypeAndStep>& records) {
    QStringList parts;
    for (const auto& [type, step] : records)
        parts << QStringLiteral("%1@%2").arg(QString::fromStdString(type)).arg(step);
    return parts.join(QLatin1Char(' '));
}

}  // namespace

class GuiEngineBridgeTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Faults are recorded when their step begins and the step is pushed when it ends: with
    // steps several ticks long, a tick drains a batch that holds only the fault record.
    void recordsBetweenStepPushesReachTheLiveView() {
        RunConfig config = test::spiralsMlpConfig(4096, {1024, 1024}, 512);
        config.threads = 1;
        config.train.max_steps = 6;
        config.probes.every = 1;
        config.faults = {{2, "scale_loss", "", 0.5}, {4, "nan_grad", "fc2", 1.0}, {5, "scale_loss", "", 2.0}};
        QTemporaryDir runs;
        const QString runDirectory = runs.filePath(QStringLiteral("run"));

        EngineBridge bridge;
        std::vector<TypeAndStep> live;
        int batchesWithoutSteps = 0;
        connect(&bridge, &EngineBridge::metricsArrived, this, [&](const DrainedMetrics& batch) {
            if (batch.steps.empty() && !batch.records.empty()) ++batchesWithoutSteps;
            for (const nlohmann::json& record : batch.records)
                live.emplace_back(typeOf(record), stepOf(record));
        });
        QSignalSpy ended(&bridge, &EngineBridge::runEnded);
        QVERIFY(bridge.start(config, runDirectory));
        QVERIFY(ended.wait(120000));

        const std::vector<TypeAndStep> disk = recordsOnDisk(runDirectory);
        // The run did record what this test is about: the faults and the NaN's locator.
        int faults = 0;
        for (const auto& r : disk) faults += r.first == event_type::kFault;
        QCOMPARE(faults, 3);
        QVERIFY2(live == disk, qPrintable(QStringLiteral("live: %1\ndisk: %2")
                                              .arg(describe(live), describe(disk))));
        // Steps here last several ticks: some batches held records and no step.
        QVERIFY(batchesWithoutSteps > 0);
    }

    // A pace of 5 steps a second on a run that could do hundreds: measured loosely over a
    // second and a half (at most twice the pace plus what was asked ahead), never shown
    // as paused, and back to full speed when the pace is lifted.
    void aPaceThrottlesStepsWithoutShowingAPause() {
        RunConfig config = test::spiralsMlpConfig(4096, {16, 16}, 32);
        config.train.epochs = 10;
        config.probes.every = 0;
        EngineBridge bridge;
        bridge.setStepsPerSecond(5.0);
        QSignalSpy pausedSpy(&bridge, &EngineBridge::paused);
        QSignalSpy ended(&bridge, &EngineBridge::runEnded);
        QVERIFY(bridge.start(config, QString()));
        QTRY_VERIFY_WITH_TIMEOUT(bridge.stepsReceived() >= 2, 20000);
        const qint64 before = bridge.stepsReceived();
        QElapsedTimer clock;
        clock.start();
        QTest::qWait(1500);
        const double seconds = clock.elapsed() / 1000.0;
        const qint64 during = bridge.stepsReceived() - before;
        QVERIFY2(during <= static_cast<qint64>(2 * 5.0 * seconds) + 3,
                 qPrintable(QStringLiteral("%1 steps in %2 s").arg(during).arg(seconds)));
        QVERIFY2(during >= 1, "the paced run made no progress");
        QCOMPARE(pausedSpy.count(), 0);
        QVERIFY(!bridge.isPaused());

        // A user's pause under a pace holds the run and is reported.
        bridge.pause();
        QCOMPARE(pausedSpy.count(), 1);
        QTest::qWait(300);  // what was asked ahead arrives
        const qint64 held = bridge.stepsReceived();
        QTest::qWait(600);
        QCOMPARE(bridge.stepsReceived(), held);
        bridge.resume();
        QVERIFY(!bridge.isPaused());

        bridge.setStepsPerSecond(0.0);
        QVERIFY(ended.wait(60000));
        QCOMPARE(bridge.stepsReceived(), qint64{96 * 10});
        QCOMPARE(pausedSpy.count(), 1);
    }
};

QTEST_MAIN(GuiEngineBridgeTest)
#include "test_gui_engine_bridge.moc"
