// MetricStream under load: one producer thread (the engine's role) pushes 10^6
// steps, events and records while a consumer (the UI timer's role) drains at
// random intervals. Every step must arrive exactly once and in order, or be
// counted as dropped; events are never dropped; every record says which step it
// followed, so the consumer can restore the run directory's order.
// No torch: this suite also runs under ThreadSanitizer (.ci/run), where it
// must be clean.
#include <QtTest/QtTest>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "ExactCompare.h"
#include "engine/MetricStream.h"

using namespace ampscope;

namespace {

// What the consumer saw, checked after the producer has joined (QVERIFY must
// not run on the producer thread, and failing early would hide the counts).
struct Tally {
    int64_t received = 0;
    int64_t dropped = 0;
    int64_t drains = 0;
    int64_t drainsWithDrops = 0;
    int64_t lastStep = 0;
    int64_t events = 0;
    int64_t lastEventStep = -1;
    int64_t records = 0;
    int64_t lastRecordStep = 0;
    std::string firstProblem;

    void problem(const std::string& text) {
        if (firstProblem.empty()) firstProblem = text;
    }

    void take(const DrainedMetrics& drained) {
        ++drains;
        if (drained.droppedSteps < 0) problem("negative dropped count");
        if (!drained.steps.empty()) {
            // The steps of one drain are contiguous, and the gap before them is
            // exactly what this drain reports as dropped.
            const int64_t first = drained.steps.front().step;
            if (first != lastStep + 1 + drained.droppedSteps)
                problem("step " + std::to_string(first) + " after " + std::to_string(lastStep) +
                        " with " + std::to_string(drained.droppedSteps) + " dropped");
            for (size_t i = 1; i < drained.steps.size(); ++i)
                if (drained.steps[i].step != drained.steps[i - 1].step + 1)
                    problem("gap inside one drain at step " +
                            std::to_string(drained.steps[i].step));
            for (const StepMetrics& m : drained.steps)
                if (m.loss != static_cast<double>(m.step) * 0.5 || m.epoch != m.step / 1000)
                    problem("step " + std::to_string(m.step) + " arrived with other values");
            lastStep = drained.steps.back().step;
        } else {
            lastStep += drained.droppedSteps;  // dropped steps are the oldest ones
        }
        received += static_cast<int64_t>(drained.steps.size());
        dropped += drained.droppedSteps;
        if (drained.droppedSteps > 0) ++drainsWithDrops;
        for (const EngineEvent& event : drained.events) {
            if (event.step <= lastEventStep) problem("events out of order");
            lastEventStep = event.step;
            ++events;
        }
        for (const StreamedRecord& r : drained.records) {
            // Pushed right after its step: it follows exactly that step.
            const int64_t step = r.record.at("step").get<int64_t>();
            if (r.afterStep != step) problem("a record of step " + std::to_string(step) +
                                             " said it followed step " + std::to_string(r.afterStep));
            if (step <= lastRecordStep) problem("records out of order");
            lastRecordStep = step;
            ++records;
        }
    }
};

constexpr int64_t kSteps = 1000000;
constexpr int64_t kEventEvery = 10000;
constexpr int64_t kRecordEvery = 1000;

void produce(MetricStream& stream) {
    for (int64_t step = 1; step <= kSteps; ++step) {
        StepMetrics m;
        m.step = step;
        m.epoch = step / 1000;
        m.loss = static_cast<double>(step) * 0.5;
        if (step % 7 == 0) m.scaleChange = ScaleChange::Backoff;  // a heap string now and then
        stream.pushStep(m);
        if (step % kEventEvery == 0) {
            EngineEvent event;
            event.kind = EngineEvent::Kind::EpochEnded;
            event.step = step;
            event.message = "epoch";
            stream.pushEvent(event);
        }
        if (step % kRecordEvery == 0) stream.pushRecord({{"type", "histogram"}, {"step", step}});
    }
}

Tally runProducerAndConsumer(size_t capacity, int maxSleepMicroseconds, unsigned seed) {
    MetricStream stream(capacity);
    Tally tally;
    std::atomic<bool> done{false};
    std::thread producer([&] {
        produce(stream);
        done.store(true, std::memory_order_release);
    });
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> pause(0, maxSleepMicroseconds);
    while (!done.load(std::memory_order_acquire)) {
        tally.take(stream.drain());
        std::this_thread::sleep_for(std::chrono::microseconds(pause(random)));
    }
    producer.join();
    tally.take(stream.drain());  // what arrived after the last drain
    return tally;
}

}  // namespace

class MetricStreamTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyStepOnceInOrderOrCountedAsDropped_data() {
        QTest::addColumn<int>("capacity");
        QTest::addColumn<int>("maxSleepMicroseconds");
        // A roomy buffer with a brisk consumer drops little or nothing; a small one
        // with a slow consumer drops often, exercising the drop path.
        QTest::newRow("roomy, brisk consumer") << (1 << 16) << 200;
        QTest::newRow("small, slow consumer") << 64 << 3000;
    }
    void everyStepOnceInOrderOrCountedAsDropped() {
        QFETCH(int, capacity);
        QFETCH(int, maxSleepMicroseconds);
        const Tally tally =
            runProducerAndConsumer(static_cast<size_t>(capacity), maxSleepMicroseconds, 20240501u);
        QVERIFY2(tally.firstProblem.empty(), tally.firstProblem.c_str());
        QCOMPARE(tally.received + tally.dropped, kSteps);
        QCOMPARE(tally.lastStep, kSteps);
        QCOMPARE(tally.events, kSteps / kEventEvery);
        QCOMPARE(tally.lastRecordStep, kSteps);
        QCOMPARE(tally.records, kSteps / kRecordEvery);
        QVERIFY(tally.drains > 1);
        qInfo("capacity %d: %lld drains, %lld steps received, %lld dropped in %lld drains",
              capacity, static_cast<long long>(tally.drains),
              static_cast<long long>(tally.received), static_cast<long long>(tally.dropped),
              static_cast<long long>(tally.drainsWithDrops));
        if (capacity < 1000) QVERIFY2(tally.dropped > 0, "the drop path was not exercised");
    }

    // Dropping is bounded: the buffer never holds more than its capacity, and
    // what a drain returns after an overflow is the newest steps.
    void overflowKeepsTheNewestSteps() {
        MetricStream stream(8);
        for (int64_t step = 1; step <= 21; ++step) {
            StepMetrics m;
            m.step = step;
            stream.pushStep(m);
        }
        const DrainedMetrics drained = stream.drain();
        QVERIFY(drained.steps.size() <= 8);
        QCOMPARE(drained.steps.back().step, int64_t{21});
        QCOMPARE(static_cast<int64_t>(drained.steps.size()) + drained.droppedSteps, int64_t{21});
        QCOMPARE(drained.steps.front().step, drained.droppedSteps + 1);
        const DrainedMetrics empty = stream.drain();
        QVERIFY(empty.steps.empty());
        QCOMPARE(empty.droppedSteps, int64_t{0});
    }

    // Records keep their order and content; an undrained stream keeps the newest and
    // counts the rest, like the steps.
    // A consumer asks empty() whether a drain is worth delivering: whatever one kind of
    // thing a drain holds, it is not empty.
    void aDrainWithAnyOneKindOfThingIsNotEmpty() {
        MetricStream stream;
        QVERIFY(stream.drain().empty());
        stream.pushRecord({{"type", "fault"}, {"step", 3}});
        DrainedMetrics onlyRecord = stream.drain();
        QVERIFY(!onlyRecord.empty());
        QCOMPARE(onlyRecord.records.size(), std::size_t{1});
        QVERIFY(stream.drain().empty());
        stream.pushStep(StepMetrics{});
        QVERIFY(!stream.drain().empty());
        stream.pushEvent(EngineEvent{});
        QVERIFY(!stream.drain().empty());
        DrainedMetrics onlyDropped;
        onlyDropped.droppedRecords = 1;
        QVERIFY(!onlyDropped.empty());
    }

    void recordsArriveInOrderAndOverflowIsCounted() {
        MetricStream stream(8, 6);
        for (int64_t step = 1; step <= 3; ++step)
            stream.pushRecord({{"type", "histogram"}, {"step", step}});
        DrainedMetrics drained = stream.drain();
        QCOMPARE(drained.records.size(), size_t{3});
        QCOMPARE(drained.records[0].record["step"].get<int64_t>(), int64_t{1});
        QCOMPARE(drained.records[2].record["step"].get<int64_t>(), int64_t{3});
        QCOMPARE(drained.records[1].record["type"].get<std::string>(), std::string("histogram"));
        QCOMPARE(drained.records[2].afterStep, int64_t{0});  // no step pushed yet
        QCOMPARE(drained.droppedRecords, int64_t{0});

        for (int64_t step = 1; step <= 20; ++step)
            stream.pushRecord({{"type", "underflow"}, {"step", step}});
        drained = stream.drain();
        QVERIFY(drained.records.size() <= 6);
        QCOMPARE(static_cast<int64_t>(drained.records.size()) + drained.droppedRecords, int64_t{20});
        QCOMPARE(drained.records.back().record["step"].get<int64_t>(), int64_t{20});
        QCOMPARE(drained.records.front().record["step"].get<int64_t>(), drained.droppedRecords + 1);
        QVERIFY(stream.drain().records.empty());
    }
};

QTEST_GUILESS_MAIN(MetricStreamTest)
#include "test_metric_stream.moc"
