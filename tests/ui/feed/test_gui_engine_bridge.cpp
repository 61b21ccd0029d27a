// The bridge between the engine thread and the window, and the one dispatcher behind
// every view: every record the run directory gets reaches the live views too, whichever
// way the ticks fall between the engine's pushes, and in the order an opened run
// directory delivers it.
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ExactCompare.h"
#include "feed/EngineBridge.h"
#include "runset/RecordDispatcher.h"
#include "runset/RunReplay.h"
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

// The records the stream hands on (every record but the steps, which come as
// StepMetrics, and the file's framing, which the writer adds).
bool streamedAsRecord(const std::string& type) {
    return type != event_type::kStep && type != event_type::kRunStart && type != event_type::kRunEnd;
}

// A view that writes down every call it gets, steps one by one ("step@3"), so that two
// ways of feeding views can be compared call by call.
class CallLog : public ui::RunObserver {
public:
    std::vector<std::string> calls;
    void beginRun(const ui::RunContext&) override { calls.push_back("begin"); }
    void appendSteps(const std::vector<StepMetrics>& steps) override {
        for (const StepMetrics& m : steps) calls.push_back("step@" + std::to_string(m.step));
    }
    void appendEpoch(const EpochMetrics& e) override { calls.push_back("epoch@" + std::to_string(e.epoch)); }
    void takeRecord(const nlohmann::json& r) override {
        calls.push_back(r.value("type", std::string()) + "@" + std::to_string(stepOf(r)));
    }
    void takeHistogram(const HistogramRecord& h) override { calls.push_back("histogram@" + std::to_string(h.step)); }
    void takeUnderflow(const UnderflowRecord& u) override { calls.push_back("underflow@" + std::to_string(u.step)); }
    void endOfBatch() override {}  // where batches end is the source's pace, not content
};

std::vector<TypeAndStep> recordsOnDisk(const QString& runDirectory) {
    QFile file(runDirectory + QLatin1Char('/') + QString::fromUtf8(kEventsFileName.data()));
    std::vector<TypeAndStep> out;
    if (!file.open(QIODevice::ReadOnly)) return out;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (line.isEmpty()) continue;
        const nlohmann::json record = nlohmann::json::parse(line.toStdString());
        if (streamedAsRecord(typeOf(record))) out.emplace_back(typeOf(record), stepOf(record));
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
        CallLog liveView;
        const std::vector<ui::RunObserver*> liveViews{&liveView};
        ui::RecordDispatcher dispatcher(liveViews);
        dispatcher.beginRun({config, QStringLiteral("live"), runDirectory, true});
        connect(&bridge, &EngineBridge::metricsArrived, this, [&](const DrainedMetrics& batch) {
            if (batch.steps.empty() && !batch.records.empty()) ++batchesWithoutSteps;
            for (const StreamedRecord& streamed : batch.records)
                live.emplace_back(typeOf(streamed.record), stepOf(streamed.record));
            dispatcher.takeDrained(batch);
            dispatcher.endBatch();
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

        // The views got, call by call, what they get when the run directory is opened.
        CallLog openedView;
        ui::replayRunDirectory({config, QStringLiteral("opened"), runDirectory, false},
                               runDirectory.toStdString(), {&openedView});
        QCOMPARE(liveView.calls.size(), openedView.calls.size());
        for (std::size_t i = 0; i < liveView.calls.size(); ++i)
            QCOMPARE(QString::fromStdString(liveView.calls[i]), QString::fromStdString(openedView.calls[i]));
        // ...which holds every step, the epoch and the located NaN between them.
        const auto count = [&](const std::string& prefix) {
            return std::count_if(openedView.calls.begin(), openedView.calls.end(),
                                 [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
        };
        QCOMPARE(count("step@"), std::ptrdiff_t{6});
        QCOMPARE(count("epoch@"), std::ptrdiff_t{1});
        QCOMPARE(count("nonfinite@4"), std::ptrdiff_t{1});
    }

    // One rule per kind of record, whatever the source: steps batched before the next
    // other record, framing and errors kept from the views, malformed records counted,
    // unknown types passed on (a newer writer's records do not break this build).
    void theDispatcherHasOneRulePerKindOfRecord() {
        CallLog view;
        const std::vector<ui::RunObserver*> views{&view};
        std::vector<std::string> errors;
        ui::RecordDispatcher::Hooks hooks;
        hooks.error = [&](const std::string& message) { errors.push_back(message); };
        ui::RecordDispatcher dispatcher(views, hooks);
        dispatcher.beginRun({});
        const std::vector<nlohmann::json> records = {
            {{"type", "run_start"}, {"schema_version", 1}},
            {{"type", "run_info"}, {"layers", {"fc1"}}},
            {{"type", "step"}, {"step", 1}, {"loss", 2.0}},
            {{"type", "step"}, {"step", 2}, {"loss", 1.5}},
            {{"type", "fault"}, {"step", 3}},
            toJson(UnderflowRecord{3, "fc1", std::string(probe_kind::kParamGradScaled), 1.0, {}}),
            {{"type", "histogram"}, {"step", 3}},  // malformed: no layer, kind or bins
            {{"type", "op_dtypes"}, {"step", 3}, {"layers", nlohmann::json::array()}},  // no view reads it
            {{"type", "step"}, {"step", 3}},
            {{"type", "step"}, {"step", "four"}},  // malformed: no integer step
            nlohmann::json::array({1, 2}),          // malformed: not an object
            {{"step", 3}},                          // malformed: no type
            {{"type", "from_a_newer_build"}, {"step", 3}},
            {{"type", "epoch"}, {"epoch", 1}, {"step", 3}},
            {{"type", "error"}, {"step", 3}, {"message", "disk full"}},
            {{"type", "run_end"}, {"status", "error"}, {"step", 3}}};
        for (const auto& r : records) dispatcher.take(r);
        dispatcher.endBatch();
        const std::vector<std::string> expected = {"begin",  "run_info@-1", "step@1", "step@2",
                                                   "fault@3", "underflow@3", "step@3",
                                                   "from_a_newer_build@3", "epoch@1"};
        QCOMPARE(view.calls.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            QCOMPARE(QString::fromStdString(view.calls[i]), QString::fromStdString(expected[i]));
        QCOMPARE(dispatcher.malformedRecords(), int64_t{4});
        QCOMPARE(dispatcher.stepsDelivered(), int64_t{3});
        QCOMPARE(dispatcher.lastStep(), int64_t{3});
        QCOMPARE(errors.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(errors[0]), QStringLiteral("disk full"));

        // A live drain holds steps and records apart: afterStep puts them back in order.
        CallLog liveView;
        const std::vector<ui::RunObserver*> liveViews{&liveView};
        ui::RecordDispatcher live(liveViews);
        DrainedMetrics drained;
        for (int64_t step = 5; step <= 8; ++step) {
            StepMetrics m;
            m.step = step;
            drained.steps.push_back(m);
        }
        drained.records.push_back({{{"type", "fault"}, {"step", 5}}, 4});
        HistogramRecord histogram;
        histogram.step = 6;
        histogram.layer = "fc1";
        histogram.kind = std::string(probe_kind::kParamGrad);
        drained.records.push_back({toJson(histogram), 6});
        drained.records.push_back({{{"type", "epoch"}, {"epoch", 2}, {"step", 8}}, 8});
        live.takeDrained(drained);
        live.endBatch();
        const std::vector<std::string> liveExpected = {"fault@5", "step@5", "step@6", "histogram@6",
                                                       "step@7",  "step@8", "epoch@2"};
        QCOMPARE(liveView.calls.size(), liveExpected.size());
        for (std::size_t i = 0; i < liveExpected.size(); ++i)
            QCOMPARE(QString::fromStdString(liveView.calls[i]), QString::fromStdString(liveExpected[i]));
    }

    // A pace of 5 steps a second on a run that could do hundreds: steps come no faster
    // than the pace lets them through, the run is never shown as paused, a user's pause
    // holds it, and it is back to full speed when the pace is lifted. Nothing here
    // depends on how fast the machine is: the pace's bound is a least time (load only
    // lengthens it), and the pause is held against a second run at the same pace.
    void aPaceThrottlesStepsWithoutShowingAPause() {
        RunConfig config = test::spiralsMlpConfig(4096, {16, 16}, 32);
        config.train.epochs = 10;
        config.probes.every = 0;
        EngineBridge bridge;
        bridge.setStepsPerSecond(5.0);
        QSignalSpy pausedSpy(&bridge, &EngineBridge::paused);
        QSignalSpy ended(&bridge, &EngineBridge::runEnded);
        QVERIFY(bridge.start(config, QString()));
        QTRY_VERIFY_WITH_TIMEOUT(bridge.stepsReceived() >= 2, 120000);
        // At most two steps are asked ahead of what arrived, so 8 more steps need 8 - 2
        // more pace ticks, 5 whole 200 ms intervals after this moment (less a margin for
        // the timers' millisecond rounding; an unpaced run takes a few ms).
        const qint64 before = bridge.stepsReceived();
        QElapsedTimer clock;
        clock.start();
        QTRY_VERIFY_WITH_TIMEOUT(bridge.stepsReceived() >= before + 8, 120000);
        const qint64 elapsed = clock.elapsed();
        QVERIFY2(elapsed >= 5 * 200 - 100, qPrintable(QStringLiteral("8 steps in %1 ms at 5 a second").arg(elapsed)));
        QCOMPARE(pausedSpy.count(), 0);
        QVERIFY(!bridge.isPaused());

        // A user's pause under a pace holds the run and is reported at once. What was
        // asked ahead (two steps at most) still arrives, and nothing more: measured while a
        // second run at the same pace makes 8 steps, which the held run would have matched.
        bridge.pause();
        QCOMPARE(pausedSpy.count(), 1);
        const qint64 held = bridge.stepsReceived();
        {
            EngineBridge sameSpeed;
            sameSpeed.setStepsPerSecond(5.0);
            QVERIFY(sameSpeed.start(config, QString()));
            QTRY_VERIFY_WITH_TIMEOUT(sameSpeed.stepsReceived() >= 8, 120000);
        }
        QVERIFY2(bridge.stepsReceived() <= held + 2,
                 qPrintable(QStringLiteral("%1 steps after a pause at %2").arg(bridge.stepsReceived()).arg(held)));
        bridge.resume();
        QVERIFY(!bridge.isPaused());

        bridge.setStepsPerSecond(0.0);
        QVERIFY(ended.wait(300000));
        QCOMPARE(bridge.stepsReceived(), qint64{96 * 10});
        QCOMPARE(pausedSpy.count(), 1);
    }
};

QTEST_MAIN(GuiEngineBridgeTest)
#include "test_gui_engine_bridge.moc"
