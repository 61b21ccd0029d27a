// The window as a person uses it: run controls on the toolbar, live plots, errors that
// leave the window usable, closing during training, opening recorded runs, settings.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QSlider>
#include <QToolBar>
#include <QScreen>
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "configure/ConfigPanel.h"
#include "feed/EngineBridge.h"
#include "window/ExecutionBadge.h"
#include "window/MainWindow.h"
#include "runset/RunSet.h"
#include "window/DockLayout.h"
#include "feed/RunOpener.h"
#include "window/WindowActions.h"
#include "window/StatusPanel.h"
#include "runset/RunInfoFacts.h"
#include "window/ElidingLabel.h"
#include "run/RunLifecycleRecords.h"
#include <QStatusBar>
#include "feed/RunControl.h"
#include "TestSupport.h"
#include "engine/Engine.h"
#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "plots/HeatmapPlot.h"
#include "views/ThroughputPlot.h"
#include "config/ConfigJson.h"
#include "engine/RunRecords.h"
#include "run/StepRecordCodec.h"
#include "probes/ProbeRecords.h"
#include "run/RunWriter.h"
#include "views/GradientHistogramView.h"

using namespace ampscope;
using ampscope::ui::MainWindow;
using ampscope::ui::MainWindowOptions;

namespace {

// A run directory's summary.json (empty when it has none).
QJsonObject summaryOf(const QString& runDirectory) {
    QFile file(runDirectory + "/summary.json");
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

// Small and fast: a few ms per step on one thread.
RunConfig tinyConfig(int64_t epochs = 500) {
    RunConfig c = ampscope::test::spiralsMlpConfig();
    c.name = "tiny";
    c.train.epochs = epochs;
    return c;
}

void clickToolbar(MainWindow& window, QAction* action) {
    auto* bar = window.findChild<QToolBar*>("runToolBar");
    QVERIFY(bar);
    QWidget* button = bar->widgetForAction(action);
    QVERIFY(button);
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
}

}  // namespace

class GuiMainWindowTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir home_;

    MainWindowOptions options(const QString& runs) {
        MainWindowOptions o;
        o.persistSettings = false;
        o.runsRoot = runs;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(home_.isValid());
        // Keep QSettings away from the user's files.
        qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
        QCoreApplication::setOrganizationName("AmpScopeTest");
        QCoreApplication::setApplicationName("test_gui_main_window");
    }

    void menusAndDocks() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        QCOMPARE(window.actions()->openRunAction()->shortcut(), QKeySequence(QKeySequence::Open));
        QCOMPARE(window.actions()->saveConfigAction()->shortcut(), QKeySequence(QKeySequence::Save));
        QCOMPARE(window.actions()->quitAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Q));
        QStringList titles;
        for (QDockWidget* dock : window.dockLayout()->docks()) titles << dock->windowTitle();
        QCOMPARE(titles, (QStringList{"Configure", "Scenarios", "Runs", "Loss", "Loss scale", "Throughput",
                                      "Gradient histograms", "Underflow", "NaN inspector", "Memory", "Updates",
                                      "Lock-step A/B", "Format sweep", "Scaling", "Block scales",
                                      "Format explorer", "Precision map", "Sensitivity"}));
        // The View menu can bring back a closed dock.
        QMenu* view = nullptr;
        for (QAction* a : window.menuBar()->actions())
            if (a->text().remove('&') == "View") view = a->menu();
        QVERIFY(view);
        window.show();
        QDockWidget* loss = window.dockLayout()->dock("loss");
        QVERIFY(view->actions().contains(loss->toggleViewAction()));
        loss->close();
        QVERIFY(loss->isHidden());
        loss->toggleViewAction()->trigger();
        QVERIFY(!loss->isHidden());
    }

    // The default layout fits a 1280x800 laptop screen: the least height of each row of
    // docks, added up with the menus, tool bar and status bar, leaves the window no
    // taller or wider than the screen (a dock's controls above its plot once made it
    // 814 px tall, its legend cut at the bottom).
    void theDefaultLayoutFitsA1280x800Screen() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QSize least = window.minimumSizeHint();
        QVERIFY2(least.width() <= 1280 && least.height() <= 800,
                 qPrintable(QStringLiteral("the window needs at least %1x%2").arg(least.width()).arg(least.height())));
        // And once shown it is no larger than the screen, as far as that least size allows
        // (before its first show the window is held taller, its docks not yet in tabs).
        const QSize room = window.screen()->availableGeometry().size();
        QTRY_VERIFY2(window.height() <= std::max(room.height(), least.height()) &&
                         window.width() <= std::max(room.width(), least.width()),
                     qPrintable(QStringLiteral("%1x%2 on a %3x%4 screen")
                                    .arg(window.width()).arg(window.height()).arg(room.width()).arg(room.height())));
    }

    // Before any run there is nothing to count: the bar does not invent "0 / 1 steps".
    void anIdleWindowCountsNoSteps() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.show();
        const QString idle = window.statusPanel()->progressBar()->text();
        QVERIFY2(!idle.contains("step") && !idle.contains('/'), qPrintable(idle));
        QVERIFY(!idle.isEmpty());
    }

    void startIsDisabledWhileTheConfigIsInvalid() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.setConfig(tinyConfig());
        QVERIFY(window.actions()->startAction()->isEnabled());
        auto* lr = qobject_cast<QLineEdit*>(window.configPanel()->fieldWidget("optim.lr"));
        lr->setText("-1");
        QVERIFY(!window.actions()->startAction()->isEnabled());
        QVERIFY(!window.actions()->stepAction()->isEnabled());
        QVERIFY(!window.startRun());
        lr->setText("0.01");
        QVERIFY(window.actions()->startAction()->isEnabled());
    }

    void startPauseStepStopFromTheToolbar() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.setConfig(tinyConfig());
        window.show();
        QSignalSpy ended(&window, &MainWindow::runEnded);

        clickToolbar(window, window.actions()->startAction());
        QVERIFY(window.runControl()->bridge()->isActive());
        QVERIFY(!window.actions()->startAction()->isEnabled());
        QVERIFY(window.runDirectory().startsWith(runs.path() + "/"));
        QVERIFY(window.runDirectory().endsWith("-tiny"));
        QTRY_VERIFY_WITH_TIMEOUT(window.views().loss->rawLossGraph()->dataCount() > 20, 20000);
        QVERIFY(window.views().loss->smoothedLossGraph()->dataCount() > 0);
        QVERIFY(window.views().scale->scaleGraph()->dataCount() > 0);
        QVERIFY(window.views().throughput->samplesPerSecondGraph()->dataCount() > 0);
        QVERIFY(window.views().throughput->stepTimeGraph()->dataCount() > 0);
        QVERIFY(window.statusPanel()->progressBar()->maximum() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(window.views().loss->validationLossGraph()->dataCount() > 0, 20000);

        // Paused: the engine says after which step it stopped, and the window shows
        // exactly that many. One step later it shows one more, and the run, stopped
        // there, holds exactly that many.
        QSignalSpy pausedAt(window.runControl()->bridge(), &ui::EngineBridge::paused);
        clickToolbar(window, window.actions()->pauseAction());
        QTRY_COMPARE_WITH_TIMEOUT(pausedAt.count(), 1, 60000);
        QVERIFY(window.runControl()->bridge()->isPaused());
        QVERIFY(window.actions()->pauseAction()->isChecked());
        const qint64 paused = pausedAt.at(0).at(0).toLongLong();
        QTRY_COMPARE_WITH_TIMEOUT(window.stepsShown(), paused, 60000);

        clickToolbar(window, window.actions()->stepAction());
        QTRY_COMPARE_WITH_TIMEOUT(window.stepsShown(), paused + 1, 60000);

        clickToolbar(window, window.actions()->stopAction());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        QCOMPARE(ended.at(0).at(0).toString(), QString("stopped"));
        QCOMPARE(summaryOf(window.runDirectory()).value("steps").toInteger(), paused + 1);
        QCOMPARE(window.stepsShown(), paused + 1);
        QVERIFY(!window.runControl()->bridge()->isActive());
        QVERIFY(window.actions()->startAction()->isEnabled());
        QVERIFY(window.configPanel()->fieldWidget("optim.lr")->isEnabled());
        QVERIFY(QFileInfo::exists(window.runDirectory() + "/events.jsonl"));

        // A second run starts from the same window into a new directory; paused and
        // resumed from the toolbar, it trains on.
        const QString first = window.runDirectory();
        QVERIFY(window.startRun());
        QVERIFY(window.runDirectory() != first);
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > 5, 60000);
        clickToolbar(window, window.actions()->pauseAction());
        QTRY_COMPARE_WITH_TIMEOUT(pausedAt.count(), 2, 60000);
        const qint64 secondPause = pausedAt.at(1).at(0).toLongLong();
        clickToolbar(window, window.actions()->pauseAction());  // resume
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > secondPause + 10, 60000);
        QVERIFY(!window.actions()->pauseAction()->isChecked());
        window.stopRun();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 60000);
    }

    void stepOnceFromIdleRunsOneStep() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.setConfig(tinyConfig());
        QVERIFY(window.actions()->stepAction()->isEnabled());
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.actions()->stepAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.stepsShown(), qint64(1), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(window.runControl()->bridge()->isPaused(), 60000);
        // Stopped now, the run holds exactly the one step.
        window.stopRun();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        QVERIFY(!window.runControl()->bridge()->isActive());
        QCOMPARE(summaryOf(window.runDirectory()).value("steps").toInteger(), qint64(1));
        QCOMPARE(window.stepsShown(), qint64(1));
    }

    void engineErrorIsShownAndANewRunCanStart() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.show();
        RunConfig bad = tinyConfig();
        bad.data.dataset = "mnist_idx";
        bad.data.path = "/nonexistent/idx-files";
        window.setConfig(bad);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QVERIFY(window.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 20000);
        QCOMPARE(ended.at(0).at(0).toString(), QString("error"));
        QVERIFY2(window.statusPanel()->errorText().contains("/nonexistent/idx-files"),
                 qPrintable(window.statusPanel()->errorText()));
        auto* box = window.findChild<QMessageBox*>();
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY(!box->isModal());
        QVERIFY(window.actions()->startAction()->isEnabled());

        window.setConfig(tinyConfig());
        QVERIFY(window.startRun());
        QVERIFY(window.statusPanel()->errorText().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > 5, 20000);
        window.stopRun();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 10000);
    }

    void closingDuringTrainingStopsCleanly() {
        QTemporaryDir runs;
        auto* window = new MainWindow(options(runs.path()));
        window->setConfig(tinyConfig());
        window->show();
        QSignalSpy closed(window, &MainWindow::closed);
        QVERIFY(window->startRun());
        QTRY_VERIFY_WITH_TIMEOUT(window->stepsShown() > 10, 60000);
        const QString runDir = window->runDirectory();
        window->close();
        QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 60000);
        QVERIFY(!window->isVisible());
        QVERIFY(!window->runControl()->bridge()->isActive());
        delete window;  // nothing left to join
        QVERIFY(QFileInfo::exists(runDir + "/summary.json"));
    }

    void destroyingDuringTrainingJoinsTheEngine() {
        QTemporaryDir runs;
        auto* window = new MainWindow(options(runs.path()));
        window->setConfig(tinyConfig());
        QVERIFY(window->startRun());
        QTRY_VERIFY_WITH_TIMEOUT(window->stepsShown() > 3, 60000);
        const QString runDir = window->runDirectory();
        delete window;
        // Joined: the engine's thread has ended, and with it the run, written to the end.
        QCOMPARE(summaryOf(runDir).value("status").toString(), QString("stopped"));
    }

    // The status bar's device: what the run_info gave, nothing made up for what it left
    // out (a recorder without a device name or a thread count).
    void theDeviceLineSaysOnlyWhatTheRunInfoHas() {
        QMainWindow host;
        ui::StatusPanel panel(host.statusBar(), &host);
        const auto* device = host.findChild<ui::ElidingLabel*>(QStringLiteral("deviceLabel"));
        QVERIFY(device);
        ui::RunInfoFacts facts;
        RunInfoRecord info;
        info.device = "cuda";
        info.deviceName = "NVIDIA H200";
        info.threads = 1;
        facts.takeRunInfo(info);
        panel.showRunFacts(facts);
        QCOMPARE(device->fullText(), QStringLiteral("CUDA: NVIDIA H200 · 1 thread"));
        info.deviceName.clear();
        info.threads = 0;
        facts.takeRunInfo(info);
        panel.showRunFacts(facts);
        QCOMPARE(device->fullText(), QStringLiteral("CUDA"));
        info.threads = 8;
        facts.takeRunInfo(info);
        panel.showRunFacts(facts);
        QCOMPARE(device->fullText(), QStringLiteral("CUDA · 8 threads"));
    }

    void opensAFinishedRunDirectory() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("finished").toStdString();
        RunConfig config = tinyConfig(3);
        {
            Engine engine(config, runDir);
            engine.start();
            engine.wait();
            QCOMPARE(QString::fromStdString(engine.summary().status), QString("finished"));
        }
        const int64_t steps = 3 * (384 / 32);
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        QString error;
        QVERIFY2(window.openRun(QString::fromStdString(runDir), &error),
                 qPrintable(error));
        QVERIFY(!window.opener()->isFollowing());
        QCOMPARE(window.stepsShown(), qint64(steps));
        QCOMPARE(window.views().loss->rawLossGraph()->dataCount(), int(steps));
        QCOMPARE(window.views().loss->validationLossGraph()->dataCount(), 3);
        QCOMPARE(window.views().scale->scaleGraph()->dataCount(), int(steps));
        QCOMPARE(window.views().throughput->samplesPerSecondGraph()->dataCount(), int(steps));
        QCOMPARE(window.configPanel()->config().model.hidden, config.model.hidden);
        QVERIFY(window.statusPanel()->deviceText().contains("1 thread"));

        QVERIFY(!window.openRun(dir.filePath("missing"), &error));
        QVERIFY(error.contains("missing"));
    }

    // A long recorded run (written here as the engine writes one: 300 000 step lines and
    // probe records every 50 steps) opens streamed: every step reaches the views, which
    // keep their bounds, and runLoaded comes once.
    void opensALongRunInBoundedViews() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("long").toStdString();
        const int64_t steps = 300000;
        {
            RunConfig config = tinyConfig(1);
            config.probes.every = 50;
            RunWriter writer(runDir, configToJson(config));
            writer.append({{"type", "run_info"}, {"layers", {"fc1", "out"}}});
            std::string line;
            for (int64_t step = 1; step <= steps; ++step) {
                StepMetrics m;
                m.step = step;
                m.epoch = 1;
                m.loss = step == 123457 ? 1e5 : 1.0 / static_cast<double>(step);
                if (step == 250001) m.loss = NAN;
                line.clear();
                appendStepRecordText(m, line);
                writer.appendText(line);
                if (step % 50 == 1)
                    for (const char* layer : {"fc1", "out"}) {
                        HistogramRecord h;
                        h.step = step;
                        h.layer = layer;
                        h.kind = std::string(probe_kind::kParamGradScaled);
                        h.histogram.counts[60] = step;
                        writer.append(toJson(h));
                    }
            }
            writer.append(toJson(RunEndRecord{"finished", steps, utcTimeNow()}));
            RunSummary summary;
            summary.steps = steps;
            writer.writeSummary(summaryToJson(summary));
        }
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        QSignalSpy loaded(&window, &MainWindow::runLoaded);
        QString error;
        QVERIFY2(window.openRun(QString::fromStdString(runDir), &error),
                 qPrintable(error));
        QCOMPARE(loaded.count(), 1);
        QVERIFY(!window.opener()->isFollowing());
        QCOMPARE(window.stepsShown(), qint64(steps));
        const auto& loss = window.runSet()->focused()->steps().loss();
        QCOMPARE(loss.appendedCount(), steps);
        QVERIFY(loss.size() <= loss.maxKeptPoints());
        QCOMPARE_BITS(loss.maxY(), 1e5);
        QCOMPARE_BITS(loss.x(loss.nearestIndex(250001)), 250001.0);  // the first NaN is kept
        QVERIFY(std::isnan(loss.y(loss.nearestIndex(250001))));
        QVERIFY(window.views().loss->rawLossGraph()->dataCount() <= 2 * 4096 + 2);
        QVERIFY(window.views().histograms->stepSlider()->maximum() + 1 <=
                static_cast<int>(ampscope::ui::HistogramSeries::kMaxKeptProbeSteps));
        window.views().histograms->setKind(QString::fromUtf8(probe_kind::kParamGradScaled.data()));
        QVERIFY(window.views().histograms->heatmap()->columnCount() > 0);
        QVERIFY(window.views().histograms->heatmap()->columnCount() <=
                static_cast<int>(ampscope::ui::HistogramSeries::kMaxKeptProbeSteps));
        QCOMPARE(window.views().histograms->heatmap()->stepOfColumn(
                     window.views().histograms->heatmap()->columnCount() - 1),
                 steps - 49);
    }

    void followsARunStillBeingWritten() {
        QTemporaryDir dir;
        const std::string runDir = dir.filePath("live").toStdString();
        Engine engine(tinyConfig(), runDir);  // long: it is stopped below
        engine.start();
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(QString::fromStdString(runDir) + "/config.json"),
                                 20000);
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        QString error;
        QVERIFY2(window.openRun(QString::fromStdString(runDir), &error),
                 qPrintable(error));
        QVERIFY(window.opener()->isFollowing());
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > 50, 20000);  // arrives while it trains
        QVERIFY(window.opener()->isFollowing());
        engine.stop();
        engine.wait();
        const int64_t steps = engine.summary().steps;
        QTRY_VERIFY_WITH_TIMEOUT(!window.opener()->isFollowing(), 20000);
        QCOMPARE(window.stepsShown(), qint64(steps));
        QCOMPARE(window.views().loss->rawLossGraph()->dataCount(), int(steps));
    }

    void statusBarSaysWhatIsEmulated() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        RunConfig c = tinyConfig();
        c.precision.mode = "fp16";
        window.setConfig(c);
        QVERIFY(window.statusPanel()->badge()->isEmulated());
        QCOMPARE(window.statusPanel()->badge()->text(), QString("EMULATED"));
        QVERIFY(window.statusPanel()->deviceText().contains("emulated fp16"));
        QVERIFY(window.statusPanel()->deviceText().contains("CPU"));
        c.precision.mode = "fp32";
        window.setConfig(c);
        QVERIFY(!window.statusPanel()->badge()->isEmulated());
        QCOMPARE(window.statusPanel()->badge()->text(), QString("REAL"));
    }

    void settingsRememberTheConfigAndLayout() {
        QTemporaryDir runs;
        MainWindowOptions o = options(runs.path());
        o.persistSettings = true;
        {
            MainWindow window(o);
            RunConfig c = tinyConfig();
            c.optim.lr = 0.0042;
            window.setConfig(c);
            window.show();
            window.dockLayout()->docks().at(3)->close();  // throughput
            window.close();
        }
        {
            MainWindow window(o);
            window.show();
            QCOMPARE_BITS(window.configPanel()->config().optim.lr, 0.0042);
            QCOMPARE(window.configPanel()->config().model.hidden, (std::vector<int64_t>{16, 16}));
            QVERIFY(window.dockLayout()->docks().at(3)->isHidden());
            window.dockLayout()->resetLayout();
            QVERIFY(!window.dockLayout()->docks().at(3)->isHidden());
        }
        QSettings().clear();
    }
};

QTEST_MAIN(GuiMainWindowTest)
#include "test_gui_main_window.moc"
