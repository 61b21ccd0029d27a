// The run set, the window's one data model: runs join and leave, one is focused, some are
// compared; one notification per change says which run and what changed (a batch of
// records names the stores it touched, once); a run keeps its colour while others come
// and go; the run that went non-finite first is found; a folder opens as a set.
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "ExactCompare.h"
#include "runset/RunPalette.h"
#include "config/ConfigJson.h"
#include "engine/RunRecords.h"
#include "probes/StepAuditRecords.h"
#include "probes/PrecisionMapRecord.h"
#include "probes/ProbeRecords.h"
#include "run/RunWriter.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

RunContext named(const char* name) {
    RunContext context;
    context.title = QString::fromLatin1(name);
    context.config.probes.every = 1;
    return context;
}

// The (run, what) pairs a spy on RunSet::changed caught, in order.
std::vector<std::pair<RunId, RunChanges>> caught(const QSignalSpy& spy) {
    std::vector<std::pair<RunId, RunChanges>> events;
    for (const QList<QVariant>& args : spy)
        events.emplace_back(args.at(0).toInt(), args.at(1).value<RunChanges>());
    return events;
}

StepMetrics step(int64_t n, double loss) {
    StepMetrics m;
    m.step = n;
    m.epoch = 1;
    m.loss = loss;
    m.scale = 65536.0;
    return m;
}

nlohmann::json nonFiniteAt(int64_t step) {
    NonFiniteRecord r;
    r.event.step = step;
    r.event.layer = "fc1";
    r.event.phase = "forward";
    r.event.tensor = "activation";
    r.event.nan = 1;
    r.event.numel = 4;
    return toJson(r);
}

// A finished run directory of `steps` steps whose loss goes non-finite at `nanStep` (0: never).
void writeRun(const std::string& dir, const char* name, int64_t steps, int64_t nanStep) {
    RunConfig config;
    config.name = name;
    RunWriter writer(dir, configToJson(config));
    for (int64_t s = 1; s <= steps; ++s) {
        nlohmann::json record = {{"type", "step"}, {"step", s}, {"epoch", 1}, {"loss", 1.0 / double(s)}};
        if (s == nanStep) record["loss"] = nullptr, record["loss_nonfinite"] = "nan";
        writer.append(record);
    }
    writer.append(toJson(RunEndRecord{"finished", steps, utcTimeNow()}));
    RunSummary summary;
    summary.steps = steps;
    writer.writeSummary(summaryToJson(summary));
    writer.close();
}

}  // namespace

class GuiRunSetTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsJoinLeaveAndOneIsFocused() {
        RunSet set;
        QSignalSpy spy(&set, &RunSet::changed);
        const RunId a = set.addRun(named("a"))->id();
        const RunId b = set.addRun(named("b"))->id();
        const RunId c = set.addRun(named("c"), {false, true})->id();
        QCOMPARE(caught(spy), (std::vector<std::pair<RunId, RunChanges>>{
                                  {a, RunChange::Added | RunChange::Focus},
                                  {b, RunChange::Added | RunChange::Focus},
                                  {c, RunChanges(RunChange::Added)}}));
        QCOMPARE(set.size(), 3);
        QCOMPARE(set.focusedId(), b);
        QCOMPARE(set.indexOf(c), 2);
        // Shown: the focused run first, then the other compared runs in list order.
        std::vector<const RunModel*> shown{set.run(b), set.run(a), set.run(c)};
        QCOMPARE(set.shownRuns(), shown);
        QCOMPARE(set.partner(), set.run(a));

        spy.clear();
        set.focus(a);
        set.focus(a);  // no change, no news
        set.setCompared(b, false);
        set.setCompared(b, false);
        QCOMPARE(caught(spy), (std::vector<std::pair<RunId, RunChanges>>{{a, RunChange::Focus},
                                                                         {b, RunChange::Compared}}));
        shown = {set.run(a), set.run(c)};
        QCOMPARE(set.shownRuns(), shown);
        QVERIFY(!set.isShown(b));
        QVERIFY(set.isShown(a));  // focused, whatever its check box

        // Removing the focused run: it is still readable while Removed is signalled, then
        // the last run left takes the focus.
        spy.clear();
        const RunModel* leaving = set.run(a);  // a view's pointer to the run it draws
        QString nameWhileRemoved;
        bool listedWhileRemoved = true;
        connect(&set, &RunSet::changed, this, [&](RunId run, RunChanges what) {
            if (!(what & RunChange::Removed)) return;
            nameWhileRemoved = leaving->name();  // still readable during the signal
            listedWhileRemoved = set.run(run) != nullptr;
        });
        set.removeRun(a);
        QCOMPARE(nameWhileRemoved, QStringLiteral("a"));
        QVERIFY(!listedWhileRemoved);  // out of the list before the signal
        QCOMPARE(caught(spy), (std::vector<std::pair<RunId, RunChanges>>{{a, RunChange::Removed},
                                                                         {c, RunChange::Focus}}));
        QCOMPARE(set.focusedId(), c);
        QVERIFY(!set.run(a));
        set.removeRun(a);  // gone already: nothing
        set.clear();
        QVERIFY(set.empty());
        QCOMPARE(set.focusedId(), kNoRun);
        QVERIFY(set.shownRuns().empty());
    }

    // A run's colour comes from its slot, the lowest free one when it joined; it keeps it.
    void aRunKeepsItsColourWhileOthersComeAndGo() {
        RunSet set;
        RunModel* a = set.addRun(named("a"));
        RunModel* b = set.addRun(named("b"));
        RunModel* c = set.addRun(named("c"));
        QCOMPARE(a->colourSlot(), 0);
        QCOMPARE(b->colourSlot(), 1);
        QCOMPARE(c->colourSlot(), 2);
        const QColor aColour = a->colour(), cColour = c->colour();
        set.removeRun(b->id());
        RunModel* d = set.addRun(named("d"));
        QCOMPARE(d->colourSlot(), 1);  // b's slot, free again
        RunModel* e = set.addRun(named("e"));
        QCOMPARE(e->colourSlot(), 3);
        QCOMPARE(a->colour(), aColour);
        QCOMPARE(c->colour(), cColour);
        QCOMPARE(a->colour(), run_palette::colour(0));
        QCOMPARE(d->colour(), run_palette::colour(1));
        // The palette: ten colours apart, then around again.
        std::set<QRgb> colours;
        for (int slot = 0; slot < run_palette::kColourCount; ++slot) colours.insert(run_palette::colour(slot).rgb());
        QCOMPARE(colours.size(), std::size_t(run_palette::kColourCount));
        QCOMPARE(run_palette::colour(run_palette::kColourCount), run_palette::colour(0));
        QCOMPARE(run_palette::firstFreeSlot({0, 2, 3}), 1);
        QCOMPARE(run_palette::firstFreeSlot({}), 0);
    }

    // A batch of records is one notification naming the stores it touched; a batch that
    // touched nothing says nothing.
    void aBatchIsOneNotificationNamingItsStores() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        QSignalSpy spy(&set, &RunSet::changed);
        run->appendSteps({step(1, 0.5), step(2, 0.25)});
        HistogramRecord h;
        h.step = 1;
        h.layer = "fc1";
        h.kind = std::string(probe_kind::kParamGrad);
        h.histogram.counts[40] = 3;
        run->takeHistogram(h);
        run->endOfBatch();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(caught(spy).front(), std::make_pair(run->id(), RunChange::Steps | RunChange::Histograms));
        spy.clear();
        run->endOfBatch();
        QCOMPARE(spy.count(), 0);
        run->takeRecord(toJson(MemoryRecord{2, {1048576, 1048576, std::nullopt, {}, {}}}));
        run->endOfBatch();
        QCOMPARE(caught(spy), (std::vector<std::pair<RunId, RunChanges>>{{run->id(), RunChange::Memory}}));
        // The first non-finite value: the inspector's store, and the run's own facts (the
        // run list marks its step).
        spy.clear();
        QCOMPARE(run->firstNonFiniteStep(), int64_t{-1});
        run->takeRecord(nonFiniteAt(2));
        run->endOfBatch();
        QCOMPARE(caught(spy).front().second, RunChange::NonFinite | RunChange::Identity);
        QCOMPARE(run->firstNonFiniteStep(), int64_t{2});
        QCOMPARE(run->nonFinite().record()->event.layer, std::string("fc1"));
        QCOMPARE(run->steps().loss().appendedCount(), int64_t{2});
        QCOMPARE(run->histograms().series("param_grad", "fc1")->size(), std::size_t(1));
    }

    // precision_map records: the run's PrecisionMapHistory keeps them by step (a record
    // that does not read is counted), and the batch names that store alone.
    void precisionMapsAreKeptByStep() {
        RunSet set;
        RunModel* run = set.addRun(named("a"));
        QSignalSpy spy(&set, &RunSet::changed);
        PrecisionMapRecord map;
        map.mode = "bf16";
        map.reference = "fp32";
        for (const int64_t step : {4, 2}) {
            map.step = step;
            run->takeRecord(toJson(map));
        }
        nlohmann::json broken = toJson(map);
        broken["ops"] = "not a list";
        run->takeRecord(broken);
        run->endOfBatch();
        QCOMPARE(caught(spy), (std::vector<std::pair<RunId, RunChanges>>{{run->id(), RunChange::PrecisionMap}}));
        QCOMPARE(run->precisionMap().maps().size(), std::size_t(2));
        QCOMPARE(run->precisionMap().latestStep(), int64_t{4});
        QVERIFY(run->precisionMap().map(2));
        QVERIFY(!run->precisionMap().map(3));
        QCOMPARE(run->precisionMap().malformedRecords(), int64_t{1});
        // More maps than kept: the oldest go.
        for (int64_t step = 10; step < 10 + int64_t(PrecisionMapHistory::kMaxMaps); ++step) {
            map.step = step;
            run->takeRecord(toJson(map));
        }
        run->endOfBatch();
        QCOMPARE(run->precisionMap().maps().size(), PrecisionMapHistory::kMaxMaps);
        QVERIFY(!run->precisionMap().map(4));
        QCOMPARE(run->precisionMap().maps().begin()->first, int64_t{10});
    }

    void theFirstNonFiniteRunIsFound() {
        RunSet set;
        RunModel* late = set.addRun(named("late"));
        RunModel* clean = set.addRun(named("clean"));
        RunModel* early = set.addRun(named("early"));
        late->takeRecord(nonFiniteAt(7));
        late->endOfBatch();
        // A run whose locator was off: its first non-finite loss counts.
        early->appendSteps({step(1, 0.5), step(2, std::nan("")), step(3, 0.5)});
        early->endOfBatch();
        clean->appendSteps({step(1, 0.5)});
        clean->endOfBatch();
        QCOMPARE(early->firstNonFiniteStep(), int64_t{2});
        const std::vector<RunId> all{late->id(), clean->id(), early->id()};
        QCOMPARE(set.firstNonFinite(all), early->id());
        set.focus(clean->id());
        set.focusFirstNonFinite(all);
        QCOMPARE(set.focusedId(), early->id());
        // None went non-finite: the first of them is focused.
        set.focusFirstNonFinite({clean->id(), late->id()});
        QCOMPARE(set.focusedId(), late->id());
        QCOMPARE(set.firstNonFinite({clean->id()}), kNoRun);
    }

    void theBadgeSaysHowARunRan() {
        RunSet set;
        RunContext context = named("a");
        context.config.precision.mode = "fp16";
        context.config.device = "cpu";
        RunModel* run = set.addRun(context);
        QVERIFY2(run->badgeText().startsWith("EMULATED \u00B7 fp16 \u00B7 CPU"), qPrintable(run->badgeText()));
        run->takeRecord({{"type", "run_info"},
                         {"device", "cuda"},
                         {"precision", {{"mode", "bf16"}, {"emulated", false}, {"execution", "real bf16 autocast"}}}});
        run->endOfBatch();
        QCOMPARE(run->badgeText(), QString("REAL \u00B7 bf16 \u00B7 CUDA"));
        run->takeRecord({{"type", "run_info"},
                         {"device", "cuda"},
                         {"precision", {{"mode", "fp16"}, {"emulated", false},
                                        {"execution", "recorded from a PyTorch run (torch 2.4)"}}}});
        QCOMPARE(run->badgeText(), QString("RECORDED \u00B7 fp16 \u00B7 CUDA"));
    }

    // A scenario's output folder opens as one set, in the order its runs started, the
    // run that went non-finite first focused; a folder with no run says so in one line.
    void aFolderOfRunsOpensAsASet() {
        QTemporaryDir tmp;
        const std::string folder = tmp.filePath("scenario").toStdString();
        writeRun(folder + "/zeta", "zeta", 5, 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        writeRun(folder + "/alpha", "alpha", 6, 4);
        RunSet set;
        QStringList errors;
        const std::vector<RunId> ids = loadRunFolder(set, QString::fromStdString(folder), {}, &errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QCOMPARE(ids.size(), std::size_t(2));
        QCOMPARE(set.run(ids[0])->name(), QString("zeta"));  // started first
        QCOMPARE(set.run(ids[1])->name(), QString("alpha"));
        QCOMPARE(set.run(ids[0])->steps().stepCount(), int64_t{5});
        QCOMPARE(set.run(ids[0])->status(), QString("finished"));
        QCOMPARE(set.focusedId(), ids[1]);  // non-finite at step 4
        QVERIFY(set.run(ids[0])->isCompared() && set.run(ids[1])->isCompared());

        RunSet empty;
        QVERIFY(loadRunFolder(empty, tmp.filePath("nothing"), {}, &errors).empty());
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.front().contains("no run in it"), qPrintable(errors.front()));
        QVERIFY(empty.empty());
    }

    // Runs read at once (each parsed on its own thread, their batches taken in turn) keep
    // each its own records, in the order given; one that is not a run is refused in its
    // place. The long run spans several batches, so batches of the runs interleave.
    void runsReadAtOnceKeepTheirOwnRecords() {
        QTemporaryDir tmp;
        const std::string folder = tmp.filePath("runs").toStdString();
        writeRun(folder + "/long", "long", 20000, 0);
        writeRun(folder + "/short", "short", 5, 3);
        QVERIFY(QDir().mkpath(tmp.filePath("runs/not-a-run")));
        RunSet set;
        const std::vector<LoadedRun> loaded =
            loadRunDirectories(set, {tmp.filePath("runs/long"), tmp.filePath("runs/not-a-run"), tmp.filePath("runs/short")},
                               {false, true});
        QCOMPARE(loaded.size(), std::size_t(3));
        QVERIFY(loaded[0].run && loaded[2].run);
        QVERIFY(!loaded[1].run);
        QVERIFY2(loaded[1].error.contains("config.json"), qPrintable(loaded[1].error));
        QCOMPARE(loaded[0].run->name(), QString("long"));
        QCOMPARE(loaded[0].run->steps().stepCount(), int64_t{20000});
        QCOMPARE(loaded[2].run->steps().stepCount(), int64_t{5});
        QCOMPARE(loaded[0].run->status(), QString("finished"));
        QCOMPARE(loaded[2].run->status(), QString("finished"));
        QCOMPARE(set.size(), 2);
    }

    // What a run amounts to (RunOutcome), read once with the run: without a summary, the
    // counts over every step, exact however far the series are thinned (20000 steps, a
    // skipped step and a backoff every 7th, a growth every 1000th, counted here by the
    // test's own loop); with one, the summary's results, and what it does not state absent.
    void aRunsOutcomeCountsEveryStep() {
        RunSet set;
        RunModel* run = set.addRun(named("long"));
        std::vector<StepMetrics> steps;
        int64_t skipped = 0, backoffs = 0, growths = 0;
        double lastFinite = 0.0;
        for (int64_t s = 1; s <= 20000; ++s) {
            StepMetrics m;
            m.step = s;
            m.loss = s % 7 == 0 ? std::nan("") : 1.0 / double(s);
            m.stepSkipped = s % 7 == 0;
            m.scaleChange = s % 7 == 0 ? ScaleChange::Backoff : (s % 1000 == 0 ? ScaleChange::Growth : ScaleChange::None);
            m.scaleAfter = double(s);
            skipped += m.stepSkipped;
            backoffs += m.scaleChange == ScaleChange::Backoff;
            growths += m.scaleChange == ScaleChange::Growth;
            if (std::isfinite(m.loss)) lastFinite = m.loss;
            steps.push_back(m);
        }
        run->appendSteps(steps);
        run->endOfBatch();
        RunResults r = run->outcome().results();
        QCOMPARE(r.steps, int64_t{20000});
        QCOMPARE(r.skippedSteps, skipped);
        QCOMPARE(r.scaleBackoffs, backoffs);
        QCOMPARE(r.scaleGrowths, growths);
        QVERIFY(r.finalTrainLoss);
        QCOMPARE_BITS(*r.finalTrainLoss, lastFinite);  // the last finite loss, here step 20000's
        QCOMPARE_BITS(*r.finalScale, 20000.0);
        QVERIFY(!r.valLoss && !r.valAccuracy);  // no epoch ended

        nlohmann::json summary = summaryToJson(RunSummary{});
        summary.erase("val_loss");
        summary.erase("val_accuracy");
        run->takeSummary(readSummaryChecked(summary));
        r = run->outcome().results();
        QCOMPARE(r.steps, int64_t{0});  // the summary's word now
        QVERIFY(r.finalTrainLoss && r.finalScale);
        QVERIFY(!r.valLoss && !r.valAccuracy);
    }
};

QTEST_MAIN(GuiRunSetTest)
#include "test_gui_run_set.moc"
