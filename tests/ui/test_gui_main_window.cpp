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
#include <QtTest/QtTest>

#include "ConfigPanel.h"
#include "EngineBridge.h"
#include "ExecutionBadge.h"
#include "MainWindow.h"
#include "TestSupport.h"
#include "engine/Engine.h"
#include "plots/LossPlot.h"
#include "plots/ScalePlot.h"
#include "plots/HeatmapPlot.h"
#include "plots/ThroughputPlot.h"
#include "config/ConfigJson.h"
#include "engine/RunRecords.h"
#include "engine/StepRecordText.h"
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
        QCOMPARE(window.openRunAction()->shortcut(), QKeySequence(QKeySequence::Open));
        QCOMPARE(window.saveConfigAction()->shortcut(), QKeySequence(QKeySequence::Save));
        QCOMPARE(window.quitAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Q));
        QStringList titles;
        for (QDockWidget* dock : window.docks()) titles << dock->windowTitle();
        QCOMPARE(titles, (QStringList{"Configure", "Loss", "Loss scale", "Throughput",
                                      "Gradient histograms", "Underflow", "NaN inspector",
                                      "Memory", "Lock-step A/B", "Compare runs", "Format sweep",
                                      "Scaling", "Block scales", "Format explorer", "Scenarios"}));
        // The View menu can bring back a closed dock.
        QMenu* view = nullptr;
        for (QAction* a : window.menuBar()->actions())
            if (a->text().remove('&') == "View") view = a->menu();
        QVERIFY(view);
        window.show();
        QDockWidget* loss = window.docks().at(1);
        QVERIFY(view->actions().contains(loss->toggleViewAction()));
        loss->close();
        QVERIFY(loss->isHidden());
        loss->toggleViewAction()->trigger();
        QVERIFY(!loss->isHidden());
    }

    // Before any run there is nothing to count: the bar does not invent "0 / 1 steps".
    void anIdleWindowCountsNoSteps() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.show();
        const QString idle = window.progressBar()->text();
        QVERIFY2(!idle.contains("step") && !idle.contains('/'), qPrintable(idle));
        QVERIFY(!idle.isEmpty());
    }

    void startIsDisabledWhileTheConfigIsInvalid() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.setConfig(tinyConfig());
        QVERIFY(window.startAction()->isEnabled());
        auto* lr = qobject_cast<QLineEdit*>(window.configPanel()->fieldWidget("optim.lr"));
        lr->setText("-1");
        QVERIFY(!window.startAction()->isEnabled());
        QVERIFY(!window.stepAction()->isEnabled());
        QVERIFY(!window.startRun());
        lr->setText("0.01");
        QVERIFY(window.startAction()->isEnabled());
    }

    void startPauseStepStopFromTheToolbar() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.setConfig(tinyConfig());
        window.show();
        QSignalSpy ended(&window, &MainWindow::runEnded);

        clickToolbar(window, window.startAction());
        QVERIFY(window.bridge()->isActive());
        QVERIFY(!window.startAction()->isEnabled());
        QVERIFY(window.runDirectory().startsWith(runs.path() + "/"));
        QVERIFY(window.runDirectory().endsWith("-tiny"));
        QTRY_VERIFY_WITH_TIMEOUT(window.lossPlot()->rawLossGraph()->dataCount() > 20, 20000);
        QVERIFY(window.lossPlot()->smoothedLossGraph()->dataCount() > 0);
        QVERIFY(window.scalePlot()->scaleGraph()->dataCount() > 0);
        QVERIFY(window.throughputPlot()->samplesPerSecondGraph()->dataCount() > 0);
        QVERIFY(window.throughputPlot()->stepTimeGraph()->dataCount() > 0);
        QVERIFY(window.progressBar()->maximum() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(window.lossPlot()->validationLossGraph()->dataCount() > 0, 20000);

        // Paused: the engine says after which step it stopped, and the window shows
        // exactly that many. One step later it shows one more, and the run, stopped
        // there, holds exactly that many.
        QSignalSpy pausedAt(window.bridge(), &ui::EngineBridge::paused);
        clickToolbar(window, window.pauseAction());
        QTRY_COMPARE_WITH_TIMEOUT(pausedAt.count(), 1, 60000);
        QVERIFY(window.bridge()->isPaused());
        QVERIFY(window.pauseAction()->isChecked());
        const qint64 paused = pausedAt.at(0).at(0).toLongLong();
        QTRY_COMPARE_WITH_TIMEOUT(window.stepsShown(), paused, 60000);

        clickToolbar(window, window.stepAction());
        QTRY_COMPARE_WITH_TIMEOUT(window.stepsShown(), paused + 1, 60000);

        clickToolbar(window, window.stopAction());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        QCOMPARE(ended.at(0).at(0).toString(), QString("stopped"));
        QCOMPARE(summaryOf(window.runDirectory()).value("steps").toInteger(), paused + 1);
        QCOMPARE(window.stepsShown(), paused + 1);
        QVERIFY(!window.bridge()->isActive());
        QVERIFY(window.startAction()->isEnabled());
        QVERIFY(window.configPanel()->fieldWidget("optim.lr")->isEnabled());
        QVERIFY(QFileInfo::exists(window.runDirectory() + "/events.jsonl"));

        // A second run starts from the same window into a new directory; paused and
        // resumed from the toolbar, it trains on.
        const QString first = window.runDirectory();
        QVERIFY(window.startRun());
        QVERIFY(window.runDirectory() != first);
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > 5, 60000);
        clickToolbar(window, window.pauseAction());
        QTRY_COMPARE_WITH_TIMEOUT(pausedAt.count(), 2, 60000);
        const qint64 secondPause = pausedAt.at(1).at(0).toLongLong();
        clickToolbar(window, window.pauseAction());  // resume
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > secondPause + 10, 60000);
        QVERIFY(!window.pauseAction()->isChecked());
        window.stopRun();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 60000);
    }

    void stepOnceFromIdleRunsOneStep() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.setConfig(tinyConfig());
        QVERIFY(window.stepAction()->isEnabled());
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.stepAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.stepsShown(), qint64(1), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(window.bridge()->isPaused(), 60000);
        // Stopped now, the run holds exactly the one step.
        window.stopRun();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        QVERIFY(!window.bridge()->isActive());
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
        QVERIFY2(window.errorText().contains("/nonexistent/idx-files"),
                 qPrintable(window.errorText()));
        auto* box = window.findChild<QMessageBox*>();
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY(!box->isModal());
        QVERIFY(window.startAction()->isEnabled());

        window.setConfig(tinyConfig());
        QVERIFY(window.startRun());
        QVERIFY(window.errorText().isEmpty());
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
        QVERIFY(!window->bridge()->isActive());
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
        QVERIFY2(window.openRunDirectory(QString::fromStdString(runDir), &error),
                 qPrintable(error));
        QVERIFY(!window.isFollowingRun());
        QCOMPARE(window.stepsShown(), qint64(steps));
        QCOMPARE(window.lossPlot()->rawLossGraph()->dataCount(), int(steps));
        QCOMPARE(window.lossPlot()->validationLossGraph()->dataCount(), 3);
        QCOMPARE(window.scalePlot()->scaleGraph()->dataCount(), int(steps));
        QCOMPARE(window.throughputPlot()->samplesPerSecondGraph()->dataCount(), int(steps));
        QCOMPARE(window.configPanel()->config().model.hidden, config.model.hidden);
        QVERIFY(window.statusDeviceText().contains("1 thread"));

        QVERIFY(!window.openRunDirectory(dir.filePath("missing"), &error));
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
            writer.append(runEndRecord("finished", steps));
            RunSummary summary;
            summary.steps = steps;
            writer.writeSummary(summaryToJson(summary));
        }
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        QSignalSpy loaded(&window, &MainWindow::runLoaded);
        QString error;
        QVERIFY2(window.openRunDirectory(QString::fromStdString(runDir), &error),
                 qPrintable(error));
        QCOMPARE(loaded.count(), 1);
        QVERIFY(!window.isFollowingRun());
        QCOMPARE(window.stepsShown(), qint64(steps));
        const auto& loss = window.lossPlot()->rawLoss();
        QCOMPARE(loss.appendedCount(), steps);
        QVERIFY(loss.size() <= loss.maxKeptPoints());
        QCOMPARE(loss.maxY(), 1e5);
        QCOMPARE(loss.x(loss.nearestIndex(250001)), 250001.0);  // the first NaN is kept
        QVERIFY(std::isnan(loss.y(loss.nearestIndex(250001))));
        QVERIFY(window.lossPlot()->rawLossGraph()->dataCount() <= 2 * 4096 + 2);
        QVERIFY(window.histogramView()->stepSlider()->maximum() + 1 <=
                static_cast<int>(ampscope::ui::GradientHistogramView::kMaxKeptProbeSteps));
        window.histogramView()->setKind(QString::fromUtf8(probe_kind::kParamGradScaled.data()));
        window.histogramView()->endOfBatch();
        QVERIFY(window.histogramView()->heatmap()->columnCount() > 0);
        QVERIFY(window.histogramView()->heatmap()->columnCount() <= 500);
        QCOMPARE(window.histogramView()->heatmap()->stepOfColumn(
                     window.histogramView()->heatmap()->columnCount() - 1),
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
        QVERIFY2(window.openRunDirectory(QString::fromStdString(runDir), &error),
                 qPrintable(error));
        QVERIFY(window.isFollowingRun());
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > 50, 20000);  // arrives while it trains
        QVERIFY(window.isFollowingRun());
        engine.stop();
        engine.wait();
        const int64_t steps = engine.summary().steps;
        QTRY_VERIFY_WITH_TIMEOUT(!window.isFollowingRun(), 20000);
        QCOMPARE(window.stepsShown(), qint64(steps));
        QCOMPARE(window.lossPlot()->rawLossGraph()->dataCount(), int(steps));
    }

    void statusBarSaysWhatIsEmulated() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        RunConfig c = tinyConfig();
        c.precision.mode = "fp16";
        window.setConfig(c);
        QVERIFY(window.executionBadge()->isEmulated());
        QCOMPARE(window.executionBadge()->text(), QString("EMULATED"));
        QVERIFY(window.statusDeviceText().contains("emulated fp16"));
        QVERIFY(window.statusDeviceText().contains("CPU"));
        c.precision.mode = "fp32";
        window.setConfig(c);
        QVERIFY(!window.executionBadge()->isEmulated());
        QCOMPARE(window.executionBadge()->text(), QString("REAL"));
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
            window.docks().at(3)->close();  // throughput
            window.close();
        }
        {
            MainWindow window(o);
            window.show();
            QCOMPARE(window.configPanel()->config().optim.lr, 0.0042);
            QCOMPARE(window.configPanel()->config().model.hidden, (std::vector<int64_t>{16, 16}));
            QVERIFY(window.docks().at(3)->isHidden());
            window.resetLayout();
            QVERIFY(!window.docks().at(3)->isHidden());
        }
        QSettings().clear();
    }
};

QTEST_MAIN(GuiMainWindowTest)
#include "test_gui_main_window.moc"
