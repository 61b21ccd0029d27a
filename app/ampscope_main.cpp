// ampscope: the lab. With a display (or QT_QPA_PLATFORM=offscreen) and the GUI built it
// opens the window; without a display, or with --headless, it runs in the terminal:
// --config's run, --scenario's runs, or else the default comparison, which is the
// default scenario (amp-sanity) and so the same runs and table as
// `ampscope-cli run --scenario amp-sanity`. Options: WindowArguments.h.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "window/DockLayout.h"
#include "HeadlessRunner.h"
#include "ScenarioRunner.h"
#include "WindowArguments.h"
#include "common/BuildInfo.h"
#include "common/InputError.h"
#include "run/EventSchema.h"
#include "config/ConfigJson.h"
#include "engine/Versions.h"
#include "run/RunNaming.h"
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

#include "configure/ConfigPanel.h"
#include "window/MainWindow.h"
#include "feed/RunOpener.h"
#include "lessons/ScenarioBrowser.h"
#include "window/PresentMode.h"
#include "lessons/ScenarioShelf.h"
#endif

using namespace ampscope;

namespace {

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

// --config's run into PARENT/<timestamp>-<run name>.
int runConfigHeadless(const std::string& configPath, const std::string& parent) {
    RunConfig config;
    try {
        config = loadConfigFile(configPath);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ampscope: %s\n", e.what());
        return 2;
    }
    const std::string directory = newRunDirectory(parent, runName(config));
    std::printf("ampscope: running %s headless into %s\n", configPath.c_str(), directory.c_str());
    const auto result = app::runHeadless(config, directory, stdout);
    app::printSummary(result.summary, directory, stdout);
    return app::exitCodeFor(result);
}

// A scenario's runs into PARENT/<timestamp>-<scenario>; without --scenario the default
// comparison, which is the default scenario.
int runScenarioHeadless(const std::string& requested, const std::string& parent) {
    const std::string name = requested.empty() ? kDefaultScenario : requested;
    const std::string directory = newRunDirectory(parent, name);
    if (requested.empty())
        std::printf("ampscope: running the default comparison headless, scenario %s (as "
                    "ampscope-cli run --scenario %s does), into %s\n\n",
                    name.c_str(), name.c_str(), directory.c_str());
    else
        std::printf("ampscope: running scenario %s headless into %s\n\n", name.c_str(), directory.c_str());
    try {
        const int exitCode = app::runScenarioHeadless(name, directory, {}, stdout, stderr, false, "ampscope");
        if (exitCode == 0 && findScenario(name)->comparesRuns())
            std::printf("\nrun directories: %s/<run>/, the table in %s/comparison.txt\n", directory.c_str(),
                        directory.c_str());
        return exitCode;
    } catch (const InputError& e) {
        std::fprintf(stderr, "ampscope: %s\n", e.what());
        return 2;
    }
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

// Screenshots show the window at the screen's size (Xvfb's, or the offscreen platform's).
void fillTheScreen(ui::MainWindow& window) {
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        window.resize(screen->availableGeometry().size());
        window.move(screen->availableGeometry().topLeft());
        // Laid out at the new size first, then given the default proportions for it.
        QTimer::singleShot(0, &window, [&window] { window.dockLayout()->windowResized(); });
    }
}

// A screenshot fills the screen; in Present mode, as the projector shows it.
void fillTheScreen(ui::MainWindow& window, bool present) {
    if (present)
        window.presentMode()->enter();
    else
        fillTheScreen(window);
}

QDockWidget* dockNamed(ui::MainWindow& window, const std::string& id) {
    return window.findChild<QDockWidget*>(QString::fromStdString(id) + QStringLiteral("Dock"));
}

// --open-run: the window with a recorded run in it. With --screenshot it grabs the window
// once the run is shown and exits, saying how long opening took (the long-run benchmark
// times this: tests/bench/long_run_bench.py). A run that cannot be read at all (refused,
// or not one of its lines a record) is one line on stderr and exit 2; with --screenshot the
// window, which says the same, is grabbed first. One that has not ended is shown as it is.
int openRunInWindow(ui::MainWindow& window, const app::WindowRequest& options, QDockWidget* frontDock) {
    const bool screenshot = !options.screenshotPath.empty();
    window.show();
    if (screenshot) {
        QApplication::setQuitOnLastWindowClosed(false);
        fillTheScreen(window, options.present);  // once shown: before, the docks' least size may refuse it
    } else if (options.present) {
        window.presentMode()->enter();
    }
    // The one line of a bad input (several refused runs of a folder joined into it).
    const auto sayUnreadable = [&](const QString& why) {
        std::fprintf(stderr, "ampscope: --open-run: %s\n",
                     QString(why).replace(QLatin1Char('\n'), QStringLiteral("; ")).toUtf8().constData());
    };
    const auto grabAndExit = [&](int exitCode) {
        QTimer::singleShot(0, &window, [&, exitCode] {
            QApplication::exit(grabWindow(window, frontDock, options.screenshotPath) ? exitCode : 1);
        });
    };
    QElapsedTimer opening;
    bool loaded = false;
    QObject::connect(&window, &ui::MainWindow::runLoaded, &window, [&] {
        if (loaded) return;
        loaded = true;
        std::printf("ampscope: opened %s: %lld steps shown in %.3f s\n", options.openRun.c_str(),
                    static_cast<long long>(window.stepsShown()),
                    static_cast<double>(opening.nsecsElapsed()) / 1e9);
        std::printf("ampscope: %s\n", window.runStatusText().toUtf8().constData());
        std::fflush(stdout);
        // Every run it added failed while being read (a file of garbage larger than a poll).
        const QString unreadable = window.opener()->unreadable();
        if (!unreadable.isEmpty()) sayUnreadable(unreadable);
        if (screenshot) grabAndExit(unreadable.isEmpty() ? 0 : 2);  // else the window stays, saying why
    });
    opening.start();
    QString error;
    if (!window.openRun(QString::fromStdString(options.openRun), &error)) {
        sayUnreadable(error);
        if (!screenshot) return 2;
        grabAndExit(2);  // runLoaded never comes for what was refused
    }
    return QApplication::exec();
}

// --scenario NAME --screenshot PNG --at-end: every run of the scenario trained, the window
// grabbed once it has ended and shows what its narrative starts with.
int scenarioEndInWindow(ui::MainWindow& window, const app::WindowRequest& options) {
    QApplication::setQuitOnLastWindowClosed(false);
    window.show();
    fillTheScreen(window, options.present);
    int exitCode = 0;
    QObject::connect(window.scenarioBrowser(), &ui::ScenarioBrowser::scenarioFinished, &window, [&] {
        QTimer::singleShot(0, &window, [&] {
            QDockWidget* front = options.showDock.empty() ? nullptr : dockNamed(window, options.showDock);
            QApplication::exit(grabWindow(window, front, options.screenshotPath) ? 0 : 1);
        });
    });
    QObject::connect(&window, &ui::MainWindow::runEnded, &window, [&](const QString& status) {
        if (status == QLatin1String("finished")) return;
        std::fprintf(stderr, "ampscope: a run of the scenario ended (%s) before the scenario did\n",
                     status.toUtf8().constData());
        exitCode = 1;
        QApplication::exit(1);
    });
    QString error;
    if (!window.runScenario(QString::fromStdString(options.scenario), &error)) {
        std::fprintf(stderr, "ampscope: %s\n", error.toUtf8().constData());
        return 2;
    }
    const int code = QApplication::exec();
    return exitCode ? exitCode : code;
}

int runWindow(int& argc, char** argv, const app::WindowRequest& request) {
    app::WindowRequest options = request;  // a --lesson opened below runs as --scenario does, by its key
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
    if (!request.lesson.empty()) {
        // Its TorchScript model is asked for when it loads: a dialog, unless the command line
        // already said (--trust-model), or a screenshot, where nobody is there to answer.
        if (request.trustModel || screenshot)
            window.scenarioBrowser()->setModelTrust(
                [trust = request.trustModel](const QString&, const std::vector<LessonModel>&) { return trust; });
        QString error;
        const QString key = window.scenarioBrowser()->shelf()->openLesson(QString::fromStdString(request.lesson), &error);
        if (key.isEmpty()) {
            std::fprintf(stderr, "ampscope: %s\n", error.toUtf8().constData());
            return 2;
        }
        options.scenario = key.toStdString();
    }
    if (!options.scenario.empty() && !options.atEnd) {
        window.show();  // the scenario starts once the window is up
        QString error;
        if (!(screenshot ? window.loadScenario(QString::fromStdString(options.scenario), &error)
                         : window.runScenario(QString::fromStdString(options.scenario), &error))) {
            std::fprintf(stderr, "ampscope: %s\n", error.toUtf8().constData());
            return 2;
        }
    }
    QDockWidget* frontDock = options.showDock.empty() ? nullptr : dockNamed(window, options.showDock);
    if (!options.showDock.empty() && !frontDock) {
        std::fprintf(stderr, "ampscope: --show-dock: no dock named '%s' (see ampscope --help)\n",
                     options.showDock.c_str());
        return 2;
    }
    if (!options.openRun.empty()) return openRunInWindow(window, options, frontDock);
    if (options.atEnd) return scenarioEndInWindow(window, options);
    if (!screenshot) {
        window.show();
        if (options.present) window.presentMode()->enter();
        return QApplication::exec();
    }

    // --screenshot: fill the screen, start the run, grab after N steps, stop, exit.
    QApplication::setQuitOnLastWindowClosed(false);
    window.show();
    fillTheScreen(window, options.present);
    int exitCode = 0;
    bool taken = false;
    auto take = [&] {
        if (taken) return;
        taken = true;
        if (!grabWindow(window, frontDock, options.screenshotPath)) exitCode = 1;
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
    app::WindowRequest options;
    try {
        options = app::parseWindowArguments(std::vector<std::string>(argv + 1, argv + argc));
        // An unknown scenario is one line naming the valid ones, before any window opens.
        if (!options.scenario.empty()) scenarioNamed(options.scenario);
    } catch (const InputError& e) {
        std::fprintf(stderr, "ampscope: %s\n", e.what());
        return 2;
    }
    if (options.command == app::WindowRequest::Command::Help) {
        std::fputs(app::windowUsage(), stdout);
        return 0;
    }
    if (options.command == app::WindowRequest::Command::Version) {
        printVersion();
        return 0;
    }
    const bool screenshot = !options.screenshotPath.empty();
#ifdef AMPSCOPE_HAVE_GUI
    // A screenshot needs no display: render offscreen when there is none.
    if (screenshot && !displayAvailable()) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    if (!options.openRun.empty() && !displayAvailable()) {
        std::fprintf(stderr,
                     "ampscope: --open-run needs a display (or --screenshot, or "
                     "QT_QPA_PLATFORM=offscreen)\n");
        return 2;
    }
    if (!options.lesson.empty() && !displayAvailable()) {
        std::fprintf(stderr,
                     "ampscope: --lesson needs a display (or --screenshot; in the terminal: ampscope-cli run "
                     "--lesson PATH --out DIR)\n");
        return 2;
    }
    if (!options.headless && displayAvailable()) return runWindow(argc, argv, options);
#else
    if (screenshot || !options.openRun.empty() || !options.lesson.empty()) {
        std::fprintf(stderr,
                     "ampscope: --screenshot, --open-run and --lesson need the window, and this build has "
                     "none (AMPSCOPE_BUILD_GUI=OFF)\n");
        return 2;
    }
    if (!options.headless && displayAvailable())
        std::printf(
            "ampscope: this build has no window (AMPSCOPE_BUILD_GUI=OFF); running "
            "headless\n");
#endif
    if (!options.configPath.empty()) return runConfigHeadless(options.configPath, options.runsParent);
    return runScenarioHeadless(options.scenario, options.runsParent);
}
