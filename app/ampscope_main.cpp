// ampscope: the lab. With a display (or QT_QPA_PLATFORM=offscreen) and the GUI built it
// opens the window; without a display, or with --headless, it runs the default
// comparison (or --config's run) headless and prints where the run directories went.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "DefaultComparison.h"
#include "HeadlessRunner.h"
#include "ScenarioRunner.h"
#include "common/BuildInfo.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "engine/Versions.h"
#include "scenarios/ScenarioCatalogue.h"

#ifdef AMPSCOPE_HAVE_GUI
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QIcon>
#include <QPixmap>
#include <QScreen>
#include <QTimer>

#include "ConfigPanel.h"
#include "MainWindow.h"
#endif

using namespace ampscope;

namespace {

struct Options {
    bool headless = false;
    std::string parent = "runs";
    std::string configPath;
    std::string scenario;
    std::string screenshotPath;
    long long afterSteps = 50;
    std::string showDock;  // --show-dock: the dock in front when the screenshot is taken
    std::string openRun;   // --open-run: a run directory to open instead of training
};

const char* const kUsage =
    "usage: ampscope [--config FILE | --scenario NAME | --open-run RUN_DIR] [--headless]\n"
    "                [--out PARENT_DIR] [--screenshot PNG [--after-steps N] [--show-dock ID]]\n"
    "                [--version]\n"
    "  --config FILE       start with this config (headless: run it)\n"
    "  --scenario NAME     open with this built-in scenario loaded and running (headless:\n"
    "                      run it into PARENT_DIR/<timestamp>-NAME); names: ampscope-cli scenarios\n"
    "  --open-run RUN_DIR  open a recorded run directory in the window (with --screenshot:\n"
    "                      grab the window once the run is shown, print how long opening\n"
    "                      took, exit)\n"
    "  --headless          no window: run in the terminal (the default comparison, or --config)\n"
    "  --out PARENT_DIR    headless runs go under PARENT_DIR/<timestamp> (default: runs)\n"
    "  --screenshot PNG    start the run, save the window to PNG after N steps, exit\n"
    "  --after-steps N     steps before --screenshot grabs the window (default 50)\n"
    "  --show-dock ID      bring that dock to the front for the screenshot: configure, loss,\n"
    "                      scale, throughput, memory, histograms, underflow, nanInspector\n";

bool environmentSet(const char* name) {
    const char* value = std::getenv(name);
    return value && *value;
}

bool displayAvailable() {
    const char* platform = std::getenv("QT_QPA_PLATFORM");
    const bool offscreen = platform && std::strcmp(platform, "offscreen") == 0;
    return environmentSet("DISPLAY") || environmentSet("WAYLAND_DISPLAY") || offscreen;
}

// --version: what a bug report needs: version, git revision, LibTorch and whether CUDA is
// usable, and the Qt the window runs on (when this build has one).
void printVersion() {
    std::printf("ampscope %s (git %s), %s", build::kVersion, build::kGitRevision,
                libraryVersions().c_str());
#ifdef AMPSCOPE_HAVE_GUI
    std::printf(", Qt %s", qVersion());
#endif
    std::printf("\n");
}

int runDefaultHeadless(const std::string& parent) {
    const std::string root = app::timestampedDirectory(parent);
    std::printf(
        "ampscope: no window available; running the default comparison headless "
        "(FashionMNIST, simple CNN, fp32 vs bf16 vs fp16) into %s\n",
        root.c_str());
    const auto runs = app::defaultComparisonConfigs();
    std::vector<app::HeadlessResult> results;
    for (const auto& run : runs) {
        std::printf("\n== %s ==\n", run.name.c_str());
        results.push_back(app::runHeadless(run.config, root + "/" + run.name, stdout));
        const auto& r = results.back();
        if (r.summary.status == "error") {
            std::fprintf(stderr, "ampscope: %s: %s\n", run.name.c_str(), r.summary.error.c_str());
            return app::exitCodeFor(r);
        }
        if (r.interrupted) return app::exitCodeFor(r);
    }
    app::printComparisonTable(runs, results, stdout);
    std::printf("\nrun directories: %s/{fp32,bf16,fp16}\n", root.c_str());
    return 0;
}

int runConfigHeadless(const std::string& configPath, const std::string& parent) {
    RunConfig config;
    try {
        config = loadConfigFile(configPath);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ampscope: %s\n", e.what());
        return 2;
    }
    const std::string name =
        config.name.empty() ? config.model.name + "-" + config.precision.mode : config.name;
    const std::string directory = app::timestampedDirectory(parent) + "-" + name;
    std::printf("ampscope: running %s headless into %s\n", configPath.c_str(), directory.c_str());
    const auto result = app::runHeadless(config, directory, stdout);
    app::printSummary(result.summary, directory, stdout);
    return app::exitCodeFor(result);
}

#ifdef AMPSCOPE_HAVE_GUI
bool grabWindow(ui::MainWindow& window, QDockWidget* frontDock, const std::string& path) {
    if (frontDock) frontDock->raise();
    QApplication::processEvents();  // lay out the raised tab before grabbing it
    window.replotAllNow();
    const QPixmap image = window.grab();
    if (image.isNull() || !image.save(QString::fromStdString(path), "PNG")) {
        std::fprintf(stderr, "ampscope: %s: could not write the screenshot\n", path.c_str());
        return false;
    }
    std::printf("ampscope: saved a %dx%d screenshot after %lld steps to %s\n", image.width(),
                image.height(), static_cast<long long>(window.stepsShown()), path.c_str());
    return true;
}

QDockWidget* dockNamed(ui::MainWindow& window, const std::string& id) {
    return window.findChild<QDockWidget*>(QString::fromStdString(id) + QStringLiteral("Dock"));
}

// --open-run: the window with a recorded run in it. With --screenshot it grabs the window
// once the run is shown and exits, saying how long opening took (the long-run benchmark
// times this: tests/bench/long_run_bench.py).
int openRunInWindow(ui::MainWindow& window, const Options& options) {
    const bool screenshot = !options.screenshotPath.empty();
    QDockWidget* frontDock = options.showDock.empty() ? nullptr : dockNamed(window, options.showDock);
    if (!options.showDock.empty() && !frontDock) {
        std::fprintf(stderr, "ampscope: --show-dock: no dock named '%s' (see ampscope --help)\n",
                     options.showDock.c_str());
        return 2;
    }
    if (screenshot) {
        QApplication::setQuitOnLastWindowClosed(false);
        if (const QScreen* screen = QGuiApplication::primaryScreen()) {
            window.resize(screen->availableGeometry().size());
            window.move(screen->availableGeometry().topLeft());
        }
    }
    window.show();
    QElapsedTimer opening;
    bool loaded = false;
    QObject::connect(&window, &ui::MainWindow::runLoaded, &window, [&] {
        if (loaded) return;
        loaded = true;
        std::printf("ampscope: opened %s: %lld steps shown in %.3f s\n", options.openRun.c_str(),
                    static_cast<long long>(window.stepsShown()),
                    static_cast<double>(opening.nsecsElapsed()) / 1e9);
        std::fflush(stdout);
        if (screenshot)
            QTimer::singleShot(0, &window, [&] {
                QApplication::exit(grabWindow(window, frontDock, options.screenshotPath) ? 0 : 1);
            });
    });
    opening.start();
    QString error;
    if (!window.openRunDirectory(QString::fromStdString(options.openRun), &error)) {
        std::fprintf(stderr, "ampscope: --open-run: %s\n", error.toUtf8().constData());
        return 2;
    }
    return QApplication::exec();
}

int runWindow(int& argc, char** argv, const Options& options) {
    QApplication application(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AmpScope"));
    QApplication::setApplicationName(QStringLiteral("ampscope"));
    QApplication::setApplicationVersion(QString::fromLatin1(build::kVersion));
    // Ties the window to the installed menu entry (Wayland app id): resources/desktop/.
    QGuiApplication::setDesktopFileName(QStringLiteral("org.ampscope.AmpScope"));
    const bool screenshot = !options.screenshotPath.empty();

    ui::MainWindowOptions windowOptions;
    // A screenshot shows the default layout and must not change the user's settings.
    windowOptions.persistSettings = !screenshot;
    ui::MainWindow window(windowOptions);
    QApplication::setWindowIcon(window.windowIcon());
    if (!options.configPath.empty()) {
        QString error;
        if (!window.loadConfigFile(QString::fromStdString(options.configPath), &error)) {
            std::fprintf(stderr, "ampscope: %s\n", error.toUtf8().constData());
            return 2;
        }
    }
    if (!options.scenario.empty()) {
        window.show();  // the scenario starts once the window is up
        QString error;
        if (!(screenshot ? window.loadScenario(QString::fromStdString(options.scenario), &error)
                         : window.runScenario(QString::fromStdString(options.scenario), &error))) {
            std::fprintf(stderr, "ampscope: %s\n", error.toUtf8().constData());
            return 2;
        }
    }
    if (!options.openRun.empty()) return openRunInWindow(window, options);
    if (!screenshot) {
        window.show();
        return QApplication::exec();
    }
    QDockWidget* frontDock = nullptr;
    if (!options.showDock.empty()) {
        frontDock = window.findChild<QDockWidget*>(QString::fromStdString(options.showDock) +
                                                   QStringLiteral("Dock"));
        if (!frontDock) {
            std::fprintf(stderr, "ampscope: --show-dock: no dock named '%s' (see ampscope --help)\n",
                         options.showDock.c_str());
            return 2;
        }
    }

    // --screenshot: fill the screen, start the run, grab after N steps, stop, exit.
    QApplication::setQuitOnLastWindowClosed(false);
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        window.resize(screen->availableGeometry().size());
        window.move(screen->availableGeometry().topLeft());
    }
    window.show();
    int exitCode = 0;
    bool taken = false;
    const QString path = QString::fromStdString(options.screenshotPath);
    auto take = [&] {
        if (taken) return;
        taken = true;
        if (frontDock) frontDock->raise();
        QApplication::processEvents();  // lay out the raised tab before grabbing it
        window.replotAllNow();
        const QPixmap image = window.grab();
        if (image.isNull() || !image.save(path, "PNG")) {
            std::fprintf(stderr, "ampscope: %s: could not write the screenshot\n",
                         options.screenshotPath.c_str());
            exitCode = 1;
        } else {
            std::printf("ampscope: saved a %dx%d screenshot after %lld steps to %s\n",
                        image.width(), image.height(), static_cast<long long>(window.stepsShown()),
                        options.screenshotPath.c_str());
        }
        window.close();  // stops the run first; `closed` follows once it has
    };
    QObject::connect(&window, &ui::MainWindow::stepsShownChanged, &window, [&](qint64 shown) {
        if (shown >= options.afterSteps) QTimer::singleShot(0, &window, take);
    });
    QObject::connect(&window, &ui::MainWindow::runEnded, &window, [&](const QString& status) {
        if (taken) return;
        std::fprintf(stderr, "ampscope: the run ended (%s) after %lld steps, before %lld\n",
                     status.toUtf8().constData(), static_cast<long long>(window.stepsShown()),
                     options.afterSteps);
        take();
        exitCode = 1;
    });
    QObject::connect(&window, &ui::MainWindow::closed, &application,
                     [&] { QApplication::exit(exitCode); });
    if (!window.startRun()) {
        std::fprintf(stderr, "ampscope: the config is not valid: %s\n",
                     window.configPanel()->problemsText().toUtf8().constData());
        return 2;
    }
    return QApplication::exec();
}
#endif

}  // namespace

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const bool hasValue = i + 1 < argc;
        if (!std::strcmp(argv[i], "--version")) {
            printVersion();
            return 0;
        } else if (!std::strcmp(argv[i], "--headless")) {
            options.headless = true;
        } else if (!std::strcmp(argv[i], "--out") && hasValue) {
            options.parent = argv[++i];
        } else if (!std::strcmp(argv[i], "--config") && hasValue) {
            options.configPath = argv[++i];
        } else if (!std::strcmp(argv[i], "--scenario") && hasValue) {
            options.scenario = argv[++i];
        } else if (!std::strcmp(argv[i], "--screenshot") && hasValue) {
            options.screenshotPath = argv[++i];
        } else if (!std::strcmp(argv[i], "--after-steps") && hasValue) {
            char* end = nullptr;
            options.afterSteps = std::strtoll(argv[i + 1], &end, 10);
            if (!end || *end || options.afterSteps < 1) {
                std::fprintf(stderr,
                             "ampscope: --after-steps: expected a positive integer "
                             "(got '%s')\n",
                             argv[i + 1]);
                return 2;
            }
            ++i;
        } else if (!std::strcmp(argv[i], "--open-run") && hasValue) {
            options.openRun = argv[++i];
        } else if (!std::strcmp(argv[i], "--show-dock") && hasValue) {
            options.showDock = argv[++i];
        } else if (!std::strcmp(argv[i], "--help")) {
            std::printf("%s", kUsage);
            return 0;
        } else {
            std::fprintf(stderr,
                         "ampscope: unknown option or missing value '%s' (see ampscope "
                         "--help)\n",
                         argv[i]);
            return 2;
        }
    }
    const bool screenshot = !options.screenshotPath.empty();
    if (!options.scenario.empty() && !options.configPath.empty()) {
        std::fprintf(stderr, "ampscope: give --config FILE or --scenario NAME, not both\n");
        return 2;
    }
    if (!options.scenario.empty() && !findScenario(options.scenario)) {
        try {
            scenarioNamed(options.scenario);
        } catch (const InputError& e) {
            std::fprintf(stderr, "ampscope: %s\n", e.what());
        }
        return 2;
    }
    if (!options.openRun.empty() && (!options.scenario.empty() || !options.configPath.empty())) {
        std::fprintf(stderr, "ampscope: --open-run shows a recorded run; drop --config/--scenario\n");
        return 2;
    }
    if (!options.openRun.empty() && options.headless) {
        std::fprintf(stderr, "ampscope: --open-run needs the window; drop --headless\n");
        return 2;
    }
    if (screenshot && options.headless) {
        std::fprintf(stderr, "ampscope: --screenshot needs the window; drop --headless\n");
        return 2;
    }
#ifdef AMPSCOPE_HAVE_GUI
    // A screenshot needs no display: render offscreen when there is none.
    if (screenshot && !displayAvailable()) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    if (!options.openRun.empty() && !displayAvailable()) {
        std::fprintf(stderr,
                     "ampscope: --open-run needs a display (or --screenshot, or "
                     "QT_QPA_PLATFORM=offscreen)\n");
        return 2;
    }
    if (!options.headless && displayAvailable()) return runWindow(argc, argv, options);
#else
    if (screenshot || !options.openRun.empty()) {
        std::fprintf(stderr,
                     "ampscope: --screenshot and --open-run need the window, and this build has "
                     "none (AMPSCOPE_BUILD_GUI=OFF)\n");
        return 2;
    }
    if (!options.headless && displayAvailable())
        std::printf(
            "ampscope: this build has no window (AMPSCOPE_BUILD_GUI=OFF); running "
            "headless\n");
#endif
    if (!options.configPath.empty()) return runConfigHeadless(options.configPath, options.parent);
    if (!options.scenario.empty()) {
        const std::string directory = app::timestampedDirectory(options.parent) + "-" + options.scenario;
        try {
            return app::runScenarioHeadless(options.scenario, directory, {}, stdout, stderr);
        } catch (const InputError& e) {
            std::fprintf(stderr, "ampscope: %s\n", e.what());
            return 2;
        }
    }
    return runDefaultHeadless(options.parent);
}
