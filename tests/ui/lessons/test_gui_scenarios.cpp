// The window's scenario browser: the start page and the Scenarios menu list every
// built-in scenario on one line; choosing one loads its config and narrative without
// starting; running one trains its runs one after another, each recorded, and ends
// with the side-by-side table; on first start amp-sanity is loaded, not started.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "configure/ConfigPanel.h"
#include "feed/EngineBridge.h"
#include "window/MainWindow.h"
#include "window/DockLayout.h"
#include "window/WindowActions.h"
#include "feed/RunControl.h"
#include "window/RunPaceControl.h"
#include "lessons/ScenarioBrowser.h"
#include "runset/RunSet.h"
#include "config/ConfigJson.h"
#include "views/LossPlot.h"
#include "runset/RunSet.h"
#include "views/RunListView.h"
#include "scenarios/ScenarioCatalogue.h"

using namespace ampscope;
using ampscope::ui::MainWindow;
using ampscope::ui::MainWindowOptions;

class GuiScenariosTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir home_;
    MainWindowOptions options(const QString& runs, bool persist = false) {
        MainWindowOptions o;
        o.persistSettings = persist;
        o.runsRoot = runs;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(home_.isValid());
        qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
    }

    void startPageAndMenuListEveryScenario() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        const auto names = scenarioNames();
        QListWidget* list = window.scenarioBrowser()->scenarioList();
        QCOMPARE(list->count(), static_cast<int>(names.size()));
        for (int i = 0; i < list->count(); ++i) {
            const QString text = list->item(i)->text();
            QCOMPARE(text, QString::fromStdString(names[static_cast<size_t>(i)]));
            QVERIFY(!list->item(i)->toolTip().isEmpty());  // the one-line summary
        }
        QMenu* menu = nullptr;
        for (QAction* a : window.menuBar()->actions())
            if (a->text().remove('&') == "Scenarios") menu = a->menu();
        QVERIFY(menu);
        int scenarioActions = 0;
        for (QAction* a : menu->actions())
            if (!a->data().toString().isEmpty()) ++scenarioActions;
        QCOMPARE(scenarioActions, static_cast<int>(names.size()));
        // Help stays last.
        QCOMPARE(window.menuBar()->actions().last()->text().remove('&'), QString("Help"));
    }

    // At a laptop's 1280x800 the start page shows every scenario's whole name: no row
    // below the list's bottom, none cut on the right.
    void theWholeListReadsAt1280x800() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.dockLayout()->dock("scenarios")->raise();
        QListWidget* list = window.scenarioBrowser()->scenarioList();
        QTRY_VERIFY(list->isVisible());
        const QRect viewport = list->viewport()->rect();
        for (int i = 0; i < list->count(); ++i) {
            const QRect row = list->visualItemRect(list->item(i));
            QVERIFY2(viewport.contains(row), qPrintable(list->item(i)->text()));
            const int textWidth = list->fontMetrics().horizontalAdvance(list->item(i)->text());
            QVERIFY2(textWidth < viewport.width(), qPrintable(list->item(i)->text()));
        }
        // The narrative still gets room to read.
        QVERIFY(window.scenarioBrowser()->narrativeView()->height() > 150);
    }

    void choosingAScenarioLoadsItWithoutStarting() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.show();
        QMenu* menu = nullptr;
        for (QAction* a : window.menuBar()->actions())
            if (a->text().remove('&') == "Scenarios") menu = a->menu();
        QVERIFY(menu);
        for (QAction* a : menu->actions())
            if (a->data().toString() == "log-of-small-sum") a->trigger();
        auto* browser = window.scenarioBrowser();
        QCOMPARE(browser->loadedScenario(), QString("log-of-small-sum"));
        QCOMPARE(window.configPanel()->config().model.name, std::string("log_sum"));
        QVERIFY(window.configPanel()->config().precision.keep_fp32.empty());
        QVERIFY(browser->narrativeView()->toPlainText().contains("What to look at"));
        QVERIFY(!window.runControl()->bridge()->isActive());
        // The run list loads the other run's config: the fixed one keeps loss_head in fp32.
        QCOMPARE(browser->runList()->count(), 2);
        QTest::mouseClick(browser->runList()->viewport(), Qt::LeftButton, {},
                          browser->runList()->visualItemRect(browser->runList()->item(1)).center());
        QCOMPARE(window.configPanel()->config().precision.keep_fp32, (std::vector<std::string>{"loss_head"}));
        QString error;
        QVERIFY(!window.loadScenario("fp8-magic", &error));
        QVERIFY2(error.contains("unknown scenario") && error.contains("amp-sanity"), qPrintable(error));
    }

    void runningAScenarioRecordsEachRunAndCompares() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.show();
        auto* browser = window.scenarioBrowser();
        browser->setOverrides({"train.max_steps=6", "threads=1"});
        QSignalSpy finished(browser, &ui::ScenarioBrowser::scenarioFinished);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QString error;
        QVERIFY2(window.runScenario("log-of-small-sum", &error), qPrintable(error));
        QVERIFY(browser->isRunningScenario());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(ended.count(), 2);
        QVERIFY(!browser->isRunningScenario());
        const QStringList directories = browser->recordedRunDirectories();
        QCOMPARE(directories.size(), 2);
        for (const QString& d : directories) QVERIFY2(QFile::exists(d + "/summary.json"), qPrintable(d));
        QVERIFY(directories[0] != directories[1]);
        const RunConfig second = loadConfigFile((directories[1] + "/config.json").toStdString());
        QCOMPARE(second.precision.keep_fp32, (std::vector<std::string>{"loss_head"}));
        QCOMPARE(second.train.max_steps, int64_t(6));
        // The table: a header and one row per run; the problem run names its first non-finite value.
        const QStringList lines = browser->comparisonTable().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[1].startsWith("fp16 ") && lines[1].contains("loss forward step 1"), qPrintable(lines[1]));
        QVERIFY2(lines[2].startsWith("fp16-head-fp32 ") && lines[2].endsWith("-"), qPrintable(lines[2]));
        QVERIFY(browser->narrativeView()->toPlainText().contains("Side by side"));

        // The contrast is in view without hunting for directories: both runs are in the
        // run set, compared, overlaid by run name, the run the narrative starts with focused.
        ui::RunSet* set = window.runSet();
        QCOMPARE(set->size(), 2);
        QCOMPARE(set->runAt(0)->name(), QString("fp16"));
        QCOMPARE(set->runAt(1)->name(), QString("fp16-head-fp32"));
        QCOMPARE(set->runAt(0)->directory(), directories[0]);
        QVERIFY(set->runAt(0)->isCompared() && set->runAt(1)->isCompared());
        QCOMPARE(set->focused()->name(),
                 QString::fromStdString(scenarioNamed("log-of-small-sum").startRun()));
        QCOMPARE(window.views().loss->shownRunCount(), 2);
        QCOMPARE(window.views().loss->runGraph(0)->name(), set->focused()->name());
        QVERIFY(window.views().loss->runGraph(1)->data()->size() > 0);
        QVERIFY(window.views().loss->legend->hasItemWithPlottable(window.views().loss->runGraph(1)));
        // The run list says which went non-finite, and where, as the table does.
        const QString fp16Row = ui::RunListView::rowText(*set->runAt(0));
        QVERIFY2(fp16Row.contains("non-finite at step 1"), qPrintable(fp16Row));
        QVERIFY(!ui::RunListView::rowText(*set->runAt(1)).contains("non-finite"));

        // A run of its own afterwards joins them, focused; the scenario's runs stay.
        QVERIFY(window.startRun());
        QCOMPARE(set->size(), 3);
        QCOMPARE(set->focusedId(), window.runControl()->liveRun());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 3, 60000);
    }

    // The pace is the teacher's choice for a scenario: each scenario remembers its own.
    // Every "look at X in run Y" of every built-in narrative: following its link focuses
    // that run and brings its dock to the front, readable at 1280x800 (one click: the link).
    void everyNarrativeViewShowsItsRunAndDockAt1280x800() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ui::RunSet* set = window.runSet();
        int shown = 0;
        for (const Scenario& scenario : builtInScenarios()) {
            for (const ui::RunModel* run : set->runs()) set->removeRun(run->id());
            for (const ScenarioRun& run : scenario.runs)
                set->addRun({run.config, QString::fromStdString(run.name), QString(), false}, {true, false});
            const std::vector<std::string> links = narrativeViewLinks(scenario.narrative);
            QVERIFY2(scenario.runs.size() < 2 || !links.empty(), scenario.name.c_str());
            for (const std::string& id : links) {
                const ScenarioView* view = scenario.view(id);
                QVERIFY(view);
                const QString where = QString::fromStdString(scenario.name + ": " + id);
                window.showScenarioView(*view);
                QCoreApplication::processEvents();
                if (!view->run.empty()) {
                    QVERIFY2(set->focused(), qPrintable(where));
                    QCOMPARE(set->focused()->name(), QString::fromStdString(view->run));
                }
                if (view->dock.empty()) continue;
                QDockWidget* dock = window.dockLayout()->dock(QString::fromStdString(view->dock));
                QVERIFY2(dock, qPrintable(where));
                QVERIFY2(dock->isVisible() && !dock->visibleRegion().isEmpty(), qPrintable(where));
                QVERIFY2(dock->width() >= 300 && dock->height() >= 200,
                         qPrintable(where + QStringLiteral(": %1x%2").arg(dock->width()).arg(dock->height())));
                // And the window still fits the screen: no dock's least size pushes it taller
                // or wider than 1280x800 (the status bar and the docks' bottoms cut off).
                const QSize least = window.minimumSizeHint();
                QString docks;
                for (QDockWidget* d : window.findChildren<QDockWidget*>())
                    if (d->isVisible() && !d->visibleRegion().isEmpty())
                        docks += QStringLiteral(" %1 %2x%3").arg(d->objectName()).arg(d->minimumSizeHint().width()).arg(d->minimumSizeHint().height());
                QVERIFY2(least.width() <= 1280 && least.height() <= 800,
                         qPrintable(where + QStringLiteral(": the window needs %1x%2;").arg(least.width()).arg(least.height()) + docks));
                ++shown;
            }
        }
        QVERIFY(shown >= 20);
    }

    void paceIsRememberedPerScenario() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        auto* pace = window.actions()->paceControl();
        QCOMPARE_BITS(pace->stepsPerSecond(), 0.0);  // as fast as possible unless chosen
        QVERIFY(window.loadScenario("fp16-no-scaler"));
        pace->setStepsPerSecond(5.0);
        QCOMPARE_BITS(window.runControl()->bridge()->stepsPerSecond(), 5.0);
        QVERIFY(window.loadScenario("softmax-overflow"));
        QCOMPARE_BITS(pace->stepsPerSecond(), 0.0);
        pace->setStepsPerSecond(2.0);
        QVERIFY(window.loadScenario("fp16-no-scaler"));
        QCOMPARE_BITS(pace->stepsPerSecond(), 5.0);
        QCOMPARE_BITS(window.runControl()->bridge()->stepsPerSecond(), 5.0);
        QVERIFY(window.loadScenario("softmax-overflow"));
        QCOMPARE_BITS(pace->stepsPerSecond(), 2.0);
    }

    void stoppingARunEndsTheScenario() {
        QTemporaryDir runs;
        MainWindow window(options(runs.path()));
        window.show();
        auto* browser = window.scenarioBrowser();
        browser->setOverrides({"threads=1"});
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QVERIFY(window.runScenario("fp16-no-scaler"));
        QTRY_VERIFY_WITH_TIMEOUT(window.stepsShown() > 3, 30000);
        window.stopRun();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000);
        QTest::qWait(200);
        QVERIFY(!browser->isRunningScenario());
        QVERIFY(!window.runControl()->bridge()->isActive());  // the second run did not start
        QCOMPARE(browser->recordedRunDirectories().size(), 1);
    }

    void firstStartLoadsAmpSanityWithoutStarting() {
        QSettings().clear();
        QTemporaryDir runs;
        {
            MainWindow window(options(runs.path(), true));
            QCOMPARE(window.scenarioBrowser()->loadedScenario(), QString("amp-sanity"));
            QCOMPARE(window.configPanel()->config().name, std::string("amp-sanity-fp32"));
            QVERIFY(!window.runControl()->bridge()->isActive());
            window.close();
        }
        {
            // Not the first start any more: the saved config wins, no scenario is loaded.
            MainWindow window(options(runs.path(), true));
            QVERIFY(window.scenarioBrowser()->loadedScenario().isEmpty());
            QCOMPARE(window.configPanel()->config().name, std::string("amp-sanity-fp32"));
        }
        QSettings().clear();
    }
};

QTEST_MAIN(GuiScenariosTest)
#include "test_gui_scenarios.moc"
