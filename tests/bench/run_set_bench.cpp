// Run set benchmark (docs/guide/performance.md, "A run set"): N recorded runs of S steps
// each opened into one run set, then a live run growing beside them, the window's per-step
// and histogram docks drawing all of them, offscreen.
//   1. Writing the runs (once; kept in --dir for the next time): each a run directory as
//      the engine writes it: config.json, events.jsonl (run_start, run_info, a step line
//      per step in the engine's text, an epoch line every 10^4 steps, a histogram and an
//      underflow line per layer every 50 steps), summary.json.
//   2. Opening them all into the set (loadRunDirectories, as File > Open of a folder
//      does): wall time, and how much the process's resident memory grew per run (the
//      stores are thinned by their rules, so it must not grow with S: the row at S/10,
//      opened first and kept open meanwhile, says so).
//   3. Frames: a live run in the set (focused, every run compared) takes 33 steps per
//      tick (1000 steps/s at 30 Hz) and, every 50 steps, its histograms and underflow
//      counts; a frame is the tick plus the replot of the Loss, Loss scale, Gradient
//      histograms and Underflow docks at 1280x800, until the event queue is empty.
// Prints a table and checks it (BenchRows.h): every run opened, every row a finite,
// positive number, else exit 1. --smoke: 2 runs of 2x10^4 steps and 20 frames, to prove
// it still runs.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QGridLayout>
#include <QTemporaryDir>
#include <ctime>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "BenchRows.h"
#include "config/ConfigJson.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "probes/ProbeRecords.h"
#include "run/StepRecordCodec.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"
#include "views/GradientHistogramView.h"
#include "views/UnderflowView.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

const char* const kLayers[] = {"fc1", "fc2", "out"};
constexpr int64_t kProbeEvery = 50;
constexpr int64_t kStepsPerEpoch = 10000;
constexpr int kStepsPerTick = 33;

StepMetrics syntheticStep(int64_t step, int run) {
    StepMetrics m;
    m.step = step;
    m.epoch = 1 + (step - 1) / kStepsPerEpoch;
    m.loss = (1.0 + run) * std::exp(-static_cast<double>(step) / 2e5) + 0.05 * std::sin(0.37 * static_cast<double>(step)) + 0.1;
    m.lr = 1e-3;
    m.gradNorm = m.gradNormClipped = 0.5;
    m.stepSeconds = 0.001;
    m.samplesPerSecond = 32000;
    m.scale = m.scaleAfter = std::ldexp(1.0, 16 - static_cast<int>(step / 200000));
    m.growthTracker = step % 2000;
    return m;
}

// A gradient histogram centred `shift` binades below 2^-10, and its fp16 classes.
HistogramRecord syntheticHistogram(int64_t step, const char* layer, int shift) {
    HistogramRecord h;
    h.step = step;
    h.layer = layer;
    h.kind = std::string(probe_kind::kParamGradScaled);
    for (int k = -6; k <= 6; ++k)
        h.histogram.counts[static_cast<std::size_t>(-10 - shift + k - kMinExponent)] = 100 - 12 * std::abs(k);
    return h;
}

UnderflowRecord syntheticUnderflow(int64_t step, const char* layer, int shift) {
    UnderflowRecord u;
    u.step = step;
    u.layer = layer;
    u.kind = std::string(probe_kind::kParamGradScaled);
    u.counts.normal = 1000;
    u.counts.flushed = 10 * shift;
    return u;
}

void writeRun(const QString& directory, int64_t steps, int run) {
    QDir().mkpath(directory);
    RunConfig config;
    config.precision.mode = "fp16";
    std::ofstream(QFile::encodeName(directory + "/config.json").toStdString()) << configToJson(config).dump();
    std::ofstream events(QFile::encodeName(directory + "/events.jsonl").toStdString());
    events << R"({"type":"run_start","schema_version":1,"device":"cpu","threads":1,"time":"2026-01-01T00:00:00Z"})" << '\n';
    events << R"({"type":"run_info","layers":["fc1","fc2","out"],"model":"mlp","parameters":1000,"device":"cpu"})" << '\n';
    std::string line;
    for (int64_t step = 1; step <= steps; ++step) {
        line.clear();
        appendStepRecordText(syntheticStep(step, run), line);
        events << line << '\n';
        if (step % kProbeEvery == 0 || step == 1)
            for (const char* layer : kLayers) {
                events << toJson(syntheticHistogram(step, layer, 2 * run)).dump() << '\n';
                events << toJson(syntheticUnderflow(step, layer, run)).dump() << '\n';
            }
        if (step % kStepsPerEpoch == 0) {
            EpochMetrics e{step / kStepsPerEpoch, step, 0.5, 0.5, 0.9, 1.0};
            events << epochRecord(e).dump() << '\n';
        }
    }
    events << R"({"type":"run_end","status":"finished"})" << '\n';
    std::ofstream(QFile::encodeName(directory + "/summary.json").toStdString()) << R"({"status":"finished"})";
}

double residentMiB() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            double kib = 0;
            status >> kib;
            return kib / 1024.0;
        }
        status.ignore(1 << 16, '\n');
    }
    return 0.0;
}

double ms(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

// CPU time of `clock` in ms: on a shared machine the wall time also counts the waits for
// a core, the CPU time only the work.
double cpuMs(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

struct Opened {
    double seconds = 0, cpuSeconds = 0, mibPerRun = 0;
};

Opened openRuns(RunSet& set, const QStringList& directories) {
    const double before = residentMiB();
    QElapsedTimer t;
    t.start();
    const double cpuBefore = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
    for (const LoadedRun& loaded : loadRunDirectories(set, directories, {false, true}))
        if (!loaded.run) std::fprintf(stderr, "not opened: %s\n", qPrintable(loaded.error));
    Opened o;
    o.seconds = ms(t) / 1000.0;
    o.cpuSeconds = (cpuMs(CLOCK_PROCESS_CPUTIME_ID) - cpuBefore) / 1000.0;
    o.mibPerRun = (residentMiB() - before) / std::max<qsizetype>(1, directories.size());
    return o;
}

QStringList ensureRuns(const QString& root, int runs, int64_t steps) {
    QStringList directories;
    for (int r = 0; r < runs; ++r) {
        const QString dir = QStringLiteral("%1/steps-%2/run-%3").arg(root).arg(steps).arg(r);
        if (!QFile::exists(dir + "/summary.json")) writeRun(dir, steps, r);
        directories << dir;
    }
    return directories;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    bool smoke = false;
    int runs = 8;
    int64_t steps = 1000000;
    int frames = 300;
    QString root;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--smoke")) smoke = true;
        else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) root = QString::fromLocal8Bit(argv[++i]);
        else {
            std::fprintf(stderr, "usage: run_set_bench [--runs N] [--steps S] [--dir DIR] [--smoke]\n");
            return 2;
        }
    }
    if (smoke) runs = 2, steps = 20000, frames = 20;
    QTemporaryDir scratch;
    if (root.isEmpty()) root = scratch.path();

    QElapsedTimer writing;
    writing.start();
    const QStringList small = ensureRuns(root, runs, steps / 10);
    const QStringList full = ensureRuns(root, runs, steps);
    std::printf("run set bench: %d runs of %lld steps (%s), written or found in %.1f s\n", runs,
                static_cast<long long>(steps), qPrintable(root), ms(writing) / 1000.0);

    // The smaller set stays open while the full one opens: memory it freed would otherwise
    // be reused and hide the full set's growth.
    auto tenthSet = std::make_unique<RunSet>();
    const Opened tenth = openRuns(*tenthSet, small);
    RunSet set;
    const Opened opened = openRuns(set, full);
    tenthSet.reset();

    QWidget window;
    auto* grid = new QGridLayout(&window);
    grid->addWidget(new LossPlot(&set), 0, 0);
    grid->addWidget(new ScalePlot(&set), 0, 1);
    grid->addWidget(new GradientHistogramView(&set), 1, 0);
    grid->addWidget(new UnderflowView(&set), 1, 1);
    window.resize(1280, 800);
    window.show();
    RunContext live;
    live.title = QStringLiteral("live");
    live.config.precision.mode = "fp16";
    RunModel* run = set.addRun(live, {true, true});
    QApplication::processEvents();

    std::vector<double> frameMs, frameCpuMs;
    int64_t next = 1;
    for (int f = 0; f < frames; ++f) {
        QElapsedTimer t;
        t.start();
        const double cpuBefore = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        std::vector<StepMetrics> batch;
        for (int i = 0; i < kStepsPerTick; ++i, ++next) {
            batch.push_back(syntheticStep(next, runs));
            if (next % kProbeEvery == 0)
                for (const char* layer : kLayers) {
                    run->takeHistogram(syntheticHistogram(next, layer, 0));
                    run->takeUnderflow(syntheticUnderflow(next, layer, 0));
                }
        }
        run->appendSteps(batch);
        run->endOfBatch();
        QApplication::processEvents();
        frameMs.push_back(ms(t));
        frameCpuMs.push_back(cpuMs(CLOCK_THREAD_CPUTIME_ID) - cpuBefore);
    }
    std::sort(frameMs.begin(), frameMs.end());
    std::sort(frameCpuMs.begin(), frameCpuMs.end());
    // Each row printed is a measurement checked: a memory row of 0 means /proc was not
    // read, a time of 0 that nothing was timed.
    BenchRows checked("run_set_bench");
    if (set.size() != runs + 1)  // the opened runs and the live one
        checked.failed(std::to_string(set.size() - 1) + " of " + std::to_string(runs) + " runs opened");
    const auto row = [&](const QString& what, double value, int decimals) {
        std::printf("| %-52s | %10.*f |\n", qPrintable(what), decimals, value);
        checked.measured(what.trimmed().toStdString(), value);
    };
    std::printf("| %-52s | %10s |\n", "what", "value");
    row(QStringLiteral("open %1 runs of %2 steps (s)").arg(runs).arg(steps), opened.seconds, 2);
    row(QStringLiteral("  of which CPU time, all threads (s)"), opened.cpuSeconds, 2);
    row(QStringLiteral("memory per run at %1 steps (MiB)").arg(steps / 10), tenth.mibPerRun, 1);
    row(QStringLiteral("memory per run at %1 steps (MiB)").arg(steps), opened.mibPerRun, 1);
    row(QStringLiteral("frame with a live run, median (ms)"), frameMs[frameMs.size() / 2], 2);
    row(QStringLiteral("frame with a live run, worst (ms)"), frameMs.back(), 2);
    row(QStringLiteral("  its CPU time, median (ms)"), frameCpuMs[frameCpuMs.size() / 2], 2);
    row(QStringLiteral("  its CPU time, worst (ms)"), frameCpuMs.back(), 2);
    std::printf("(%d frames of %d steps; Loss, Loss scale, Gradient histograms, Underflow at 1280x800)\n",
                frames, kStepsPerTick);
    return checked.exitCode(8);
}
