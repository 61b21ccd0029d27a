// Job band benchmark (docs/guide/performance.md, "A job of many ranks"): a recorded
// torch.distributed job of R ranks x S steps (default 512 x 10^4), opened as the window
// opens a job folder, drawn as one band per plot.
//   1. Writing the job (once; kept in --dir for the next time): JOB/rank-N run directories
//      as the recorder writes them (config.json; events.jsonl with run_start, run_info and
//      a step line per step in the recorder's text; summary.json), every rank's loss a
//      little apart, rank 19's loss NaN at step 1000 (the first non-finite), rank 7's steps
//      twice as long (a straggler).
//   2. Opening it as File > Open of a job folder does (every rank joins the set at once and
//      a few at a time are read, as band members; the event loop run at each progress
//      report, so band refreshes run meanwhile; then the focus on the first non-finite rank) with the Loss, Loss scale and Throughput plots of the
//      window at 1280x800 in place, until their bands are derived and drawn: wall time.
//   3. Frames: a full replot of the three plots (the band and its outliers, what a resize,
//      zoom or pan redraws); and a band refresh (what a live job's new steps cost at most
//      every kBandRefreshMs: the bands and outliers derived again from every rank).
//   4. Peak resident memory of the process (VmHWM).
// Prints a table and checks it (BenchRows.h): every rank opened, one band per plot with
// rank 19 and rank 7 among its outliers, every row a finite, positive number, else exit 1.
// --smoke: 32 ranks x 2000 steps, to prove it still runs.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QGridLayout>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "BenchRows.h"
#include "config/ConfigJson.h"
#include "run/RunSetFolder.h"
#include "run/StepRecordCodec.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "views/ThroughputPlot.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

constexpr int kNanRank = 19;
constexpr int64_t kNanStep = 1000;
constexpr int kSlowRank = 7;

StepMetrics rankStep(int64_t step, int rank) {
    StepMetrics m;
    m.step = step;
    m.epoch = 1;
    const double s = static_cast<double>(step);
    m.loss = 2.0 * std::exp(-s / 3000.0) + 0.1 + 0.02 * std::sin(0.37 * s + rank) + 0.0005 * (rank % 17);
    if (rank == kNanRank && step == kNanStep) m.loss = std::nan("");
    m.lr = 1e-3;
    m.gradNorm = m.gradNormClipped = 0.5;
    m.stepSeconds = (rank == kSlowRank ? 0.2 : 0.1) * (1.0 + 0.01 * std::sin(0.11 * s + rank));
    m.samplesPerSecond = 256.0 / m.stepSeconds;
    m.scale = m.scaleAfter = std::ldexp(1.0, 16 - static_cast<int>(step / 4000));
    m.growthTracker = step % 2000;
    return m;
}

void writeRank(const QString& directory, int64_t steps, int rank) {
    QDir().mkpath(directory);
    RunConfig config;
    config.precision.mode = "fp16";
    std::ofstream(QFile::encodeName(directory + "/config.json").toStdString()) << configToJson(config).dump();
    std::ofstream events(QFile::encodeName(directory + "/events.jsonl").toStdString());
    events << R"({"type":"run_start","schema_version":1,"device":"cuda:)" << rank % 8
           << R"(","threads":1,"time":"2026-01-01T00:00:00Z"})" << '\n';
    events << R"({"type":"run_info","layers":["fc1","fc2","out"],"model":"mlp","parameters":1000,"device":"cuda"})"
           << '\n';
    std::string line;
    for (int64_t step = 1; step <= steps; ++step) {
        line.clear();
        appendStepRecordText(rankStep(step, rank), line);
        events << line << '\n';
    }
    events << R"({"type":"run_end","status":"finished"})" << '\n';
    std::ofstream(QFile::encodeName(directory + "/summary.json").toStdString()) << R"({"status":"finished"})";
}

QString ensureJob(const QString& root, int ranks, int64_t steps) {
    const QString job = QStringLiteral("%1/job-%2x%3").arg(root).arg(ranks).arg(steps);
    for (int r = 0; r < ranks; ++r) {
        const QString dir = QStringLiteral("%1/rank-%2").arg(job).arg(r);
        if (!QFile::exists(dir + "/summary.json")) writeRank(dir, steps, r);
    }
    return job;
}

double statusMiB(const char* field) {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == field) {
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

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    int ranks = 512;
    int64_t steps = 10000;
    int frames = 30;
    QString root;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--smoke")) ranks = 32, steps = 2000, frames = 5;
        else if (!std::strcmp(argv[i], "--ranks") && i + 1 < argc) ranks = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) root = QString::fromLocal8Bit(argv[++i]);
        else {
            std::fprintf(stderr, "usage: job_band_bench [--ranks R] [--steps S] [--dir DIR] [--smoke]\n");
            return 2;
        }
    }
    if (ranks <= kNanRank || steps <= kNanStep) {
        std::fprintf(stderr, "job_band_bench: --ranks must be over %d and --steps over %lld (the planted NaN)\n",
                     kNanRank, static_cast<long long>(kNanStep));
        return 2;
    }
    QTemporaryDir scratch;
    if (root.isEmpty()) root = scratch.path();
    QElapsedTimer writing;
    writing.start();
    const QString job = ensureJob(root, ranks, steps);
    std::printf("job band bench: %d ranks x %lld steps (%s), written or found in %.1f s\n", ranks,
                static_cast<long long>(steps), qPrintable(job), ms(writing) / 1000.0);

    RunSet set;
    QWidget window;
    auto* grid = new QGridLayout(&window);
    auto* loss = new LossPlot(&set);
    auto* scale = new ScalePlot(&set);
    auto* throughput = new ThroughputPlot(&set);
    grid->addWidget(loss, 0, 0, 1, 2);
    grid->addWidget(scale, 1, 0);
    grid->addWidget(throughput, 1, 1);
    window.resize(1280, 800);
    window.show();
    QApplication::processEvents();
    const std::vector<RunSetTimePlot*> plots{loss, scale, throughput};

    QElapsedTimer opening;
    opening.start();
    // As the window's RunOpener opens a job folder: the ranks read through loadRunDirectories
    // (a few at a time, as band members), the event loop run at each progress report (every
    // 100 ms), so the plots' band refreshes run meanwhile as they do in the window; then the
    // focus on the first non-finite rank.
    QStringList directories;
    for (const std::string& dir : runSetDirectories(job.toStdString())) directories << QString::fromStdString(dir);
    std::vector<RunId> ids;
    for (const LoadedRun& loaded : loadRunDirectories(set, directories, {false, true}, [](double) {
             QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
         }))
        if (loaded.run) ids.push_back(loaded.run->id());
    set.focusFirstNonFinite(ids);
    const double readSeconds = ms(opening) / 1000.0;
    const double residentAfterRead = statusMiB("VmRSS:");
    // The focus moved to the first non-finite rank: the plots made their graphs and bands
    // again; what the window shows next is their first frame.
    QApplication::processEvents();
    for (RunSetTimePlot* plot : plots) plot->replot(QCustomPlot::rpImmediateRefresh);
    const double openSeconds = ms(opening) / 1000.0;

    std::vector<double> frameMs;
    for (int f = 0; f < frames; ++f) {
        QElapsedTimer t;
        t.start();
        for (RunSetTimePlot* plot : plots) plot->replot(QCustomPlot::rpImmediateRefresh);
        frameMs.push_back(ms(t));
    }
    std::vector<double> refreshMs;
    for (int f = 0; f < std::max(3, frames / 10); ++f) {
        QElapsedTimer t;
        t.start();
        for (RunSetTimePlot* plot : plots) plot->refreshBands();
        refreshMs.push_back(ms(t));
    }

    BenchRows checked("job_band_bench");
    if (static_cast<int>(ids.size()) != ranks)
        checked.failed(std::to_string(ids.size()) + " of " + std::to_string(ranks) + " ranks opened");
    for (RunSetTimePlot* plot : plots) {
        if (plot->bands().size() != 1) {
            checked.failed(plot->objectName().toStdString() + ": " + std::to_string(plot->bands().size()) + " bands");
            continue;
        }
        QStringList named;
        for (const BandOutlier& o : plot->bands().front().outliers) named << o.run->name();
        std::printf("%s: band of %zu ranks, outliers: %s; legend entries: %d\n", qPrintable(plot->objectName()),
                    plot->bands().front().members.size(), qPrintable(named.join(QStringLiteral(", "))),
                    plot->legend->itemCount());
        for (const int rank : {kNanRank, kSlowRank})
            if (!named.contains(QStringLiteral("rank-%1").arg(rank)))
                checked.failed(plot->objectName().toStdString() + ": rank " + std::to_string(rank) + " not an outlier");
    }
    const auto row = [&](const QString& what, double value, int decimals) {
        std::printf("| %-52s | %10.*f |\n", qPrintable(what), decimals, value);
        checked.measured(what.toStdString(), value);
    };
    std::printf("| %-52s | %10s |\n", "what", "value");
    row(QStringLiteral("open a job of %1 ranks x %2 steps (s)").arg(ranks).arg(steps), openSeconds, 2);
    row(QStringLiteral("  of which reading the ranks into the set (s)"), readSeconds, 2);
    row(QStringLiteral("frame: Loss, Loss scale, Throughput replot, median (ms)"), median(frameMs), 2);
    row(QStringLiteral("frame: worst (ms)"), *std::max_element(frameMs.begin(), frameMs.end()), 2);
    row(QStringLiteral("band refresh, three plots, median (ms)"), median(refreshMs), 1);
    row(QStringLiteral("peak memory (MiB)"), statusMiB("VmHWM:"), 0);
    row(QStringLiteral("  resident once the ranks are read (MiB)"), residentAfterRead, 0);
    return checked.exitCode(7);
}
