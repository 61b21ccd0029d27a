// GUI replot benchmark (docs/guide/performance.md, "Long run and window"): the real
// widgets, offscreen.
//   1. LossPlot holding 10^6 loss points: time of one UI tick (33 steps into the run set,
//      its batch's notification, immediate replot) while following the run, and while panning.
//   2. HeatmapPlot 500 steps x 96 bins: one tick = append a column, refresh, replot.
//   3. The longest UI-thread stall while an engine trains spirals/mlp at full speed in
//      the real MainWindow: a 1 ms QTimer records the gaps between its timeouts.
// Prints a table. --smoke runs a seconds-long version (10^5 points, 20 ticks, 2 s of
// training) so CTest proves the benchmark still works; it judges nothing.
// --save-images DIR also writes the benchmarked loss plot and heatmap as PNGs, to look at.
#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "feed/EngineBridge.h"
#include "window/MainWindow.h"
#include "feed/RunControl.h"
#include "engine/SystemInfo.h"
#include "plots/HeatmapPlot.h"
#include "views/LossPlot.h"
#include "runset/RunSet.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

struct Stats {
    double median = 0, p95 = 0, worst = 0;
    std::size_t count = 0;
};

Stats statsOf(std::vector<double> ms) {
    Stats s;
    s.count = ms.size();
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    s.median = ms[ms.size() / 2];
    s.p95 = ms[std::min(ms.size() - 1, ms.size() * 95 / 100)];
    s.worst = ms.back();
    return s;
}

void printRow(const char* what, const Stats& s, const char* note) {
    std::printf("| %-46s | %8.2f | %8.2f | %8.2f | %6zu | %s\n", what, s.median, s.p95, s.worst,
                s.count, note);
}

std::vector<StepMetrics> syntheticSteps(int64_t first, int64_t count) {
    std::vector<StepMetrics> steps(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
        StepMetrics& m = steps[static_cast<std::size_t>(i)];
        m.step = first + i;
        m.loss = 2.0 * std::exp(-static_cast<double>(m.step) / 3e5) +
                 0.2 * std::sin(0.37 * static_cast<double>(m.step)) + 0.25;
        m.stepSkipped = (m.step % 997) == 0;
    }
    return steps;
}

double elapsedMs(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

struct LossResults {
    Stats following, panning;
    double loadMs = 0;
    int shownPoints = 0;
};

QString imageDirectory;  // --save-images

void saveImage(QCustomPlot& plot, const char* name) {
    if (imageDirectory.isEmpty()) return;
    plot.savePng(imageDirectory + QLatin1Char('/') + QLatin1String(name), 0, 0, 1.0);
}

LossResults benchLossPlot(int64_t points, int ticks) {
    RunSet set;
    LossPlot plot(&set);
    plot.resize(1280, 480);
    plot.show();
    QApplication::processEvents();
    RunContext context;
    context.config.precision.mode = "fp16";
    RunModel* run = set.addRun(context);

    LossResults r;
    QElapsedTimer load;
    load.start();
    for (int64_t first = 1; first <= points; first += 100000)
        run->appendSteps(syntheticSteps(first, std::min<int64_t>(100000, points - first + 1)));
    run->endOfBatch();
    plot.replot(QCustomPlot::rpImmediateRefresh);
    r.loadMs = elapsedMs(load);

    // A live tick at ~1000 steps/s and 30 Hz brings ~33 steps.
    std::vector<double> following;
    int64_t next = points + 1;
    for (int i = 0; i < ticks; ++i) {
        const auto steps = syntheticSteps(next, 33);
        next += 33;
        QElapsedTimer t;
        t.start();
        run->appendSteps(steps);
        run->endOfBatch();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        following.push_back(elapsedMs(t));
    }
    r.following = statsOf(following);
    r.shownPoints = plot.rawLossGraph()->dataCount();
    saveImage(plot, "bench-loss-plot.png");

    // Panning a zoomed view across the run: every frame rebuilds the decimated views.
    std::vector<double> panning;
    const double width = static_cast<double>(points) / 4.0;
    for (int i = 0; i < ticks; ++i) {
        const double lower = (static_cast<double>(points) - width) * i / std::max(1, ticks - 1);
        QElapsedTimer t;
        t.start();
        plot.xAxis->setRange(lower, lower + width);
        plot.replot(QCustomPlot::rpImmediateRefresh);
        panning.push_back(elapsedMs(t));
    }
    r.panning = statsOf(panning);
    return r;
}

Stats benchHeatmap(int columns, int ticks) {
    HeatmapPlot map;
    HeatmapLayout layout;
    layout.firstBinY = -64;
    layout.valueBins = 93;
    layout.extraRows = {QStringLiteral("NaN"), QStringLiteral("+Inf"), QStringLiteral("-Inf")};
    layout.capacity = columns;
    map.configure(layout);  // 96 rows
    map.resize(1280, 480);
    map.show();
    map.showFp16Limits(16);
    QApplication::processEvents();
    auto column = [&](int c) {
        std::vector<double> counts(96, 0.0);
        for (int r = 0; r < 93; ++r) {
            const double y = -64 + r, centre = -20 + 6 * std::sin(c * 0.05);
            counts[static_cast<std::size_t>(r)] =
                std::round(5e4 * std::exp(-0.5 * std::pow((y - centre) / 4, 2)));
        }
        counts[93] = c % 50 == 0 ? 3 : 0;
        return counts;
    };
    for (int c = 0; c < columns; ++c) map.appendColumn(c + 1, column(c));
    map.refresh();
    map.replot(QCustomPlot::rpImmediateRefresh);
    std::vector<double> ticksMs;
    for (int i = 0; i < ticks; ++i) {
        const auto counts = column(columns + i);
        QElapsedTimer t;
        t.start();
        map.appendColumn(columns + i + 1, counts);
        map.showFp16Limits(16 - (i % 8));  // the scaled limit lines move with the scale
        map.refresh();
        map.replot(QCustomPlot::rpImmediateRefresh);
        ticksMs.push_back(elapsedMs(t));
    }
    saveImage(map, "bench-heatmap.png");
    return statsOf(ticksMs);
}

struct StallResults {
    Stats gaps;
    double worstGapMs = 0;
    int over16 = 0, over50 = 0;
    qint64 steps = 0;
    double seconds = 0;
};

StallResults benchStall(int threads, double seconds) {
    QTemporaryDir runs;
    MainWindowOptions options;
    options.persistSettings = false;
    options.runsRoot = runs.path();
    MainWindow window(options);
    window.resize(1280, 800);
    RunConfig config;
    config.name = "bench";
    config.threads = threads;
    config.device = "cpu";
    config.data.dataset = "spirals";
    config.data.synthetic_samples = 4096;
    config.data.validation = "split";
    config.data.val_fraction = 0.2;
    config.model.name = "mlp";
    config.model.hidden = {64, 64};
    config.train.epochs = 100000;
    config.train.batch_size = 64;
    window.setConfig(config);
    window.show();
    QApplication::processEvents();

    StallResults r;
    std::vector<double> gaps;
    QElapsedTimer clock;
    qint64 last = -1;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(1);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        if (last >= 0) gaps.push_back(static_cast<double>(now - last) / 1e6);
        last = now;
    });
    window.startRun();
    // Measure from the first steps on, not through data generation.
    while (window.stepsShown() == 0) QApplication::processEvents(QEventLoop::AllEvents, 5);
    clock.start();
    probe.start();
    const qint64 firstSteps = window.stepsShown();
    QEventLoop loop;
    QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
    loop.exec();
    probe.stop();
    r.seconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    r.steps = window.stepsShown() - firstSteps;
    window.stopRun();
    while (window.runControl()->bridge()->isActive()) QApplication::processEvents(QEventLoop::AllEvents, 5);
    r.gaps = statsOf(gaps);
    for (double g : gaps) {
        r.over16 += g > 16.0;
        r.over50 += g > 50.0;
    }
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    bool smoke = false;
    for (int i = 1; i < argc; ++i) {
        smoke |= std::strcmp(argv[i], "--smoke") == 0;
        if (std::strcmp(argv[i], "--save-images") == 0 && i + 1 < argc)
            imageDirectory = QString::fromLocal8Bit(argv[++i]);
    }
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    const int64_t points = smoke ? 100000 : 1000000;
    const int ticks = smoke ? 20 : 300;
    const double trainSeconds = smoke ? 2.0 : 15.0;

    std::printf("AmpScope GUI replot benchmark%s: Qt %s, platform %s, %d hardware threads, %s\n",
                smoke ? " (smoke)" : "", qVersion(),
                QGuiApplication::platformName().toUtf8().constData(), hardwareThreads(),
                cpuModelName().c_str());
    const LossResults loss = benchLossPlot(points, ticks);
    const Stats heatmap = benchHeatmap(500, ticks);
    const StallResults stallOne = benchStall(1, trainSeconds);
    const StallResults stallAll = benchStall(0, trainSeconds);

    std::printf("\n| %-46s | %8s | %8s | %8s | %6s |\n", "measurement (ms)", "median", "p95",
                "worst", "n");
    std::printf("|%s|%s|%s|%s|%s|\n", std::string(48, '-').c_str(), std::string(10, '-').c_str(),
                std::string(10, '-').c_str(), std::string(10, '-').c_str(),
                std::string(8, '-').c_str());
    char what[96];
    std::snprintf(what, sizeof what, "loss plot, %lld points: live tick + replot",
                  static_cast<long long>(points));
    char note[96];
    std::snprintf(note, sizeof note, "%d graph points drawn, load %.0f ms", loss.shownPoints,
                  loss.loadMs);
    printRow(what, loss.following, note);
    std::snprintf(what, sizeof what, "loss plot, %lld points: pan frame",
                  static_cast<long long>(points));
    printRow(what, loss.panning, "");
    printRow("heatmap 500 steps x 96 bins: tick + replot", heatmap, "");
    for (const StallResults* s : {&stallOne, &stallAll}) {
        std::snprintf(what, sizeof what, "UI gaps (1 ms timer), engine threads=%d",
                      s == &stallOne ? 1 : hardwareThreads());
        std::snprintf(note, sizeof note, "%lld steps in %.1f s; gaps >16 ms: %d, >50 ms: %d",
                      static_cast<long long>(s->steps), s->seconds, s->over16, s->over50);
        printRow(what, s->gaps, note);
    }
    std::printf("\ntargets: median replot < 16 ms, no UI stall > 50 ms\n");
    return 0;
}
