// The window when the engine fails or is interrupted at any moment: an allocation
// failure inside a step is shown as an error and the next run starts; closing the
// window at random moments of a run (while data loads, mid-step, paused) always ends
// with the engine stopped and the run directory complete.
#include <QMessageBox>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "feed/EngineBridge.h"
#include <QAction>

#include "window/MainWindow.h"
#include "window/WindowActions.h"
#include "window/StatusPanel.h"
#include "feed/RunControl.h"
#include "TestSupport.h"

using namespace ampscope;
using ampscope::ui::MainWindow;
using ampscope::ui::MainWindowOptions;

namespace {

RunConfig tinyConfig() {
    RunConfig c = ampscope::test::spiralsMlpConfig(256, {16, 16}, 16);
    c.name = "tiny";
    c.train.epochs = 200;
    c.probes.every = 2;
    return c;
}

MainWindowOptions optionsFor(const QString& runs) {
    MainWindowOptions o;
    o.persistSettings = false;
    o.runsRoot = runs;
    return o;
}

}  // namespace

class GuiEngineFaultsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void allocationFailureIsShownAndTheNextRunStarts() {
        QTemporaryDir runs;
        MainWindow window(optionsFor(runs.path()));
        window.show();
        RunConfig failing = tinyConfig();
        failing.faults = {{5, "alloc_failure", "fc1", 1.0}};
        window.setConfig(failing);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QVERIFY(window.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 20000);
        QCOMPARE(ended.at(0).at(0).toString(), QString("error"));
        QVERIFY2(window.statusPanel()->errorText().contains("out of memory"), qPrintable(window.statusPanel()->errorText()));
        auto* box = window.findChild<QMessageBox*>();
        QVERIFY(box && box->isVisible() && !box->isModal());
        QCOMPARE(window.stepsShown(), qint64{4});  // the steps before the failure stay shown
        QVERIFY(window.actions()->startAction()->isEnabled());

        RunConfig next = tinyConfig();
        next.train.epochs = 1;
        window.setConfig(next);
        QVERIFY(window.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 20000);
        QCOMPARE(ended.at(1).at(0).toString(), QString("finished"));
        QCOMPARE(window.stepsShown(), qint64{12});
    }

    void closingAtRandomMomentsAlwaysStopsCleanly() {
        QRandomGenerator random(1121);
        for (int round = 0; round < 10; ++round) {
            QTemporaryDir runs;
            auto* window = new MainWindow(optionsFor(runs.path()));
            window->setConfig(tinyConfig());
            window->show();
            QSignalSpy closed(window, &MainWindow::closed);
            QVERIFY(window->startRun());
            const QString runDir = window->runDirectory();
            // Let the event loop run (metrics arrive, the window paints) for a random time.
            QTest::qWait(static_cast<int>(random.bounded(120)));
            if (random.bounded(3) == 0) window->actions()->pauseAction()->trigger();
            QTest::qWait(static_cast<int>(random.bounded(20)));
            window->close();
            QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 10000);
            QVERIFY2(!window->runControl()->bridge()->isActive(), qPrintable(QString("round %1").arg(round)));
            delete window;
            QVERIFY2(QFileInfo::exists(runDir + "/summary.json"),
                     qPrintable(QString("round %1: %2 has no summary.json").arg(round).arg(runDir)));
        }
    }
};

QTEST_MAIN(GuiEngineFaultsTest)
#include "test_gui_engine_faults.moc"
