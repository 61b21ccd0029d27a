// Run > Prescribe… in the window, with the real `ampscope-cli prescribe` as its child on a
// tiny spirals MLP: the dialog refuses each value the command would refuse with one line
// naming it (the limits as the CLI's help states them: four formats, a budget in (0, 1],
// at least two seeds, a positive number of steps, a new or empty folder); a prescription
// run from the dialog reports run k of M with k climbing, ends with DIR's runs as the set
// and a page whose kept layers are prescription.json's (read here with nlohmann) and whose
// text is prescription.txt's; Stop ends the child, the runs so far stay on disk and the
// window keeps working; closing the window ends the child; the child's exit-2 line is
// shown as the CLI prints it; a missing ampscope-cli is one line.
#include <QAction>
#include <QDir>
#include <QLineEdit>
#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QScreen>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "FileSupport.h"
#include "TestSupport.h"
#include "config/ConfigJson.h"
#include "configure/ConfigPanel.h"
#include "prescribe/PrescribeAction.h"
#include "prescribe/PrescribeDialog.h"
#include "prescribe/PrescriptionPage.h"
#include "runset/RunSet.h"
#include "window/MainWindow.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

// app/test_cli_prescribe's tiny run: 384 training samples in batches of 32.
// Plain string literals: Qt 6.4's moc skips a class after a raw string literal.
const char* kTinyRun =
    "{\"threads\": 1, \"seed\": 3,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 512, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [32, 32]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 2, \"batch_size\": 32}}";

// The same for 2000 epochs (24000 steps): a run that is still training when it is stopped.
const char* kLongRun =
    "{\"threads\": 1, \"seed\": 3,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 512, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [32, 32]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 2000, \"batch_size\": 32}}";

MainWindowOptions windowOptions(const QString& runs) {
    MainWindowOptions options;
    options.persistSettings = false;
    options.runsRoot = runs;
    return options;
}

QString cli() { return QString::fromStdString(test::cliPath()); }

PrescribeAction* prescribeOf(MainWindow& window) {
    auto* action = window.findChild<PrescribeAction*>();
    if (action) action->setProgram(cli());
    return action;
}

}  // namespace

class PrescribeWindowTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (!QFileInfo(cli()).isExecutable()) QSKIP("AMPSCOPE_CLI does not name the built ampscope-cli");
    }

    // Each bad value on its own: Prescribe shows its line and the dialog stays open.
    void dialogRefusesEachBadValue_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("line");
        QTest::newRow("format") << "format" << "fp4"
                                << "Format: \"fp4\" is not one the prescription takes (fp8, mxfp8, mxfp4, nvfp4)";
        const QString budget = "Budget: \"%1\" is not a share of FLOPs in (0, 1] (0.9: at least 90% of the FLOPs "
                               "stay in the format)";
        QTest::newRow("budget 0") << "budget" << "0" << budget.arg("0");
        QTest::newRow("budget above 1") << "budget" << "1.01" << budget.arg("1.01");
        QTest::newRow("budget not a number") << "budget" << "most" << budget.arg("most");
        QTest::newRow("one seed") << "seeds" << "1" << "Seeds: \"1\" is too few: a seed band needs at least 2 seeds";
        QTest::newRow("steps 0") << "steps" << "0"
                                 << "Steps: \"0\" is not a number of steps (1 or more; empty: the config's own length)";
        QTest::newRow("no folder") << "out" << "" << "Output folder: none chosen";
    }
    void dialogRefusesEachBadValue() {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, line);
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        window.setConfig(configFromJson(nlohmann::json::parse(kTinyRun)));
        PrescribeAction* prescribe = prescribeOf(window);
        QVERIFY(prescribe);
        prescribe->action()->trigger();
        PrescribeDialog* dialog = prescribe->dialog();
        QVERIFY(dialog && dialog->isVisible());
        dialog->outField()->setText(runs.filePath("rx"));
        if (field == "format") dialog->formatField()->setCurrentText(value);
        if (field == "budget") dialog->budgetField()->setText(value);
        if (field == "seeds") dialog->seedsField()->setText(value);
        if (field == "steps") dialog->stepsField()->setText(value);
        if (field == "out") dialog->outField()->setText(value);
        dialog->accept();
        QCOMPARE(dialog->problem(), line);
        QVERIFY(dialog->isVisible());
        QVERIFY(!prescribe->isRunning());
        QVERIFY(!QFileInfo::exists(runs.filePath("rx")));
    }

    // With an ended run focused, the dialog offers its config.json beside the Configure
    // panel's.
    void dialogOffersTheFocusedEndedRunsConfig() {
        QTemporaryDir runs;
        const QString config = runs.filePath("tiny.json");
        test::writeTextFile(config, kTinyRun);
        const QString run = runs.filePath("one-run");
        const auto made = test::runCli({"run", config, "--out", run, "--set", "train.max_steps=4", "--quiet"});
        QVERIFY2(made.exitCode == 0, qPrintable(made.err));
        MainWindow window(windowOptions(runs.path()));
        QString error;
        QVERIFY2(window.openRun(run, &error), qPrintable(error));
        QTRY_VERIFY(window.runSet()->focused() != nullptr);
        PrescribeAction* prescribe = prescribeOf(window);
        prescribe->action()->trigger();
        QComboBox* configs = prescribe->dialog()->configField();
        QCOMPARE(configs->count(), 2);
        QVERIFY(configs->itemData(0).toString().endsWith("/CONFIG.json"));
        QCOMPARE(QDir::cleanPath(configs->itemData(1).toString()), QDir::cleanPath(run + "/config.json"));
    }

    // A folder that holds something: refused (the CLI would not overwrite it either).
    void dialogRefusesAFolderThatIsNotEmpty() {
        QTemporaryDir runs;
        test::writeTextFile(runs.filePath("kept.txt"), "mine");
        MainWindow window(windowOptions(runs.path()));
        PrescribeAction* prescribe = prescribeOf(window);
        prescribe->action()->trigger();
        PrescribeDialog* dialog = prescribe->dialog();
        dialog->outField()->setText(runs.path());
        dialog->accept();
        QCOMPARE(dialog->problem(), QString("Output folder: %1 is not empty (choose a new or empty folder: nothing "
                                            "recorded is overwritten)")
                                        .arg(runs.path()));
        QCOMPARE(test::readTextFile(runs.filePath("kept.txt")), QString("mine"));
    }

    // fp8, 2 seeds, 24 steps from the dialog on the Configure panel's config.
    void prescriptionEndsWithTheSetAndThePage() {
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        window.resize(1280, 800);
        window.show();
        window.setConfig(configFromJson(nlohmann::json::parse(kTinyRun)));
        PrescribeAction* prescribe = prescribeOf(window);
        QSignalSpy ended(prescribe, &PrescribeAction::ended);
        std::vector<std::pair<int, int>> reported;  // (k, M)
        std::vector<std::pair<qint64, qint64>> scanned;  // (step, steps) of the sensitivity scan
        QStringList scanTexts;
        connect(prescribe, &PrescribeAction::progressChanged, this, [&](const PrescribeProgress& p) {
            if (p.run > 0) reported.push_back({p.run, p.runs});
            if (p.phase == "sensitivity" && p.step > 0) {
                scanned.push_back({p.step, p.steps});
                scanTexts << p.text();
            }
        });
        prescribe->action()->trigger();
        PrescribeDialog* dialog = prescribe->dialog();
        QVERIFY(dialog->configField()->currentData().toString().endsWith("CONFIG.json"));
        const QString out = runs.filePath("rx");
        dialog->formatField()->setCurrentText("fp8");
        dialog->seedsField()->setText("2");
        dialog->stepsField()->setText("24");
        dialog->outField()->setText(out);
        dialog->accept();
        QVERIFY2(prescribe->isRunning(), qPrintable(prescribe->message()));
        QVERIFY(prescribe->progressPanel()->isVisible());
        QVERIFY(ended.wait(300000));
        QVERIFY2(ended.first().first().toBool(), qPrintable(prescribe->message()));

        const auto rx = test::readJsonFile(out + "/prescription.json");
        // The set: exactly the runs prescription.json names, each once.
        QStringList expected;
        for (const auto& arm : rx["arms"])
            for (const auto& run : arm["runs"])
                expected << QDir(out + "/" + QString::fromStdString(run.get<std::string>())).absolutePath();
        QStringList inSet;
        for (const RunModel* run : window.runSet()->runs()) inSet << QDir(run->directory()).absolutePath();
        expected.sort();
        inSet.sort();
        QCOMPARE(inSet, expected);
        // Progress: run k of M, k climbing one run at a time to the last run trained.
        QVERIFY(!reported.empty());
        int last = 0;
        for (const auto& [k, m] : reported) {
            QVERIFY2(k >= last && k <= last + 1, qPrintable(QString("run %1 after run %2").arg(k).arg(last)));
            QVERIFY(k <= m);
            last = k;
        }
        QCOMPARE(last, int(expected.size()));
        // The sensitivity scan before the first run: 24 steps (the steps asked for, under
        // the scan's own cap), four passes, so its step is said at 6, 12, 18 and 24.
        QCOMPARE(scanned, (std::vector<std::pair<qint64, qint64>>{{6, 24}, {12, 24}, {18, 24}, {24, 24}}));
        QVERIFY2(scanTexts.last().contains(QString::fromUtf8("step 24 of 24")), qPrintable(scanTexts.last()));
        // The page: prescription.json's kept layers, prescription.txt's text.
        QStringList kept;
        for (const auto& name : rx["kept"]) kept << QString::fromStdString(name.get<std::string>());
        QCOMPARE(prescribe->page()->keptLayers(), kept);
        QVERIFY(prescribe->page()->isVisible());
        QCOMPARE(prescribe->page()->pageText(), test::readTextFile(out + "/prescription.txt"));
        QVERIFY(prescribe->page()->summaryText().contains(QString::fromStdString(rx["verdict"].get<std::string>())));
    }

    // The page on a prescription that keeps layers (written here as the command writes
    // prescription.json): the kept ones in the ranking's order with their scores and FLOP
    // shares, the passed-over one not; prescription.txt as it is on disk.
    void thePageListsTheKeptLayers() {
        QTemporaryDir dir;
        test::writeTextFile(dir.filePath("prescription.json"),
            "{\"format\": \"mxfp4\", \"budget\": 0.5, \"verdict\": \"keep conv1, fc in fp32\","
            " \"ranking\": ["
            "{\"layer\": \"conv1\", \"score\": 0.6, \"flops_share\": 0.03, \"kept\": true, \"over_budget\": false},"
            "{\"layer\": \"conv2\", \"score\": 0.3, \"flops_share\": 0.9, \"kept\": false, \"over_budget\": true},"
            "{\"layer\": \"fc\", \"score\": 0.05, \"flops_share\": 0.01, \"kept\": true, \"over_budget\": false}],"
            " \"arms\": [], \"kept\": [\"conv1\", \"fc\"]}");
        test::writeTextFile(dir.filePath("prescription.txt"), "the command's text\n  as it wrote it\n");
        PrescriptionPage page;
        QString error;
        QVERIFY2(page.load(dir.path(), &error), qPrintable(error));
        QCOMPARE(page.keptLayers(), QStringList({"conv1", "fc"}));
        QCOMPARE(page.pageText(), QString("the command's text\n  as it wrote it\n"));
        // 1 - 0.03 - 0.01 = 96% of the FLOPs stay in the format.
        QCOMPARE(page.summaryText(), QString("In mxfp4: keep conv1, fc in fp32\n"
                                             "Kept in fp32 (96% of the FLOPs stay in mxfp4):\n"
                                             "  conv1: score 0.6, 3% of the FLOPs\n"
                                             "  fc: score 0.05, 1% of the FLOPs"));
        // A document that is not a prescription: one line naming the file, nothing shown changes.
        test::writeTextFile(dir.filePath("prescription.json"), "{\"format\": \"mxfp4\"}");
        QVERIFY(!page.load(dir.path(), &error));
        QVERIFY2(error.startsWith(dir.filePath("prescription.json") + ": not a prescription ("),
                 qPrintable(error));
        QCOMPARE(page.keptLayers(), QStringList({"conv1", "fc"}));
    }

    // Stop during the first runs: the child ends, what it wrote stays, the window works.
    void stopEndsTheChildAndKeepsTheRuns() {
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        window.setConfig(configFromJson(nlohmann::json::parse(kTinyRun)));
        PrescribeAction* prescribe = prescribeOf(window);
        QSignalSpy ended(prescribe, &PrescribeAction::ended);
        PrescribeProgress seen;
        connect(prescribe, &PrescribeAction::progressChanged, this, [&](const PrescribeProgress& p) { seen = p; });
        const QString config = runs.filePath("long.json");
        test::writeTextFile(config, kLongRun);
        const QString out = runs.filePath("rx");
        QString error;
        QVERIFY2(prescribe->start({config, "mxfp4", "0.9", "2", "20000", out}, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(seen.run >= 1 && seen.step >= 1, 120000);
        QVERIFY2(seen.steps == 20000, qPrintable(prescribe->progressText()));
        // The time left, once a rate is known: the runs left at the pace so far.
        QTRY_VERIFY_WITH_TIMEOUT(seen.etaSeconds >= 0.0, 60000);
        QVERIFY2(prescribe->progressText().contains(" left"), qPrintable(prescribe->progressText()));
        QVERIFY(prescribe->progressText().startsWith(QString("Run 1 of 6 (reference) · step ")));
        // The panel's own Stop button, as a user presses it.
        QPushButton* stopButton = nullptr;
        for (auto* button : prescribe->progressPanel()->findChildren<QPushButton*>())
            if (button->text() == "Stop") stopButton = button;
        QVERIFY(stopButton);
        stopButton->click();
        QVERIFY(ended.wait(30000));
        QCOMPARE(ended.first().first().toBool(), false);
        QVERIFY(!prescribe->isRunning());
        QCOMPARE(prescribe->message(), QString("Prescription stopped: the runs so far stay in %1").arg(out));
        // The run it trained: on disk, ended by the stop (its summary says so).
        const auto summary = test::readJsonFile(out + "/reference-seed-1/summary.json");
        QCOMPARE(summary["status"].get<std::string>(), std::string("stopped"));
        QVERIFY(!QFileInfo::exists(out + "/prescription.json"));
        // The window: the run is in the set and the window trains as before.
        QCOMPARE(window.runSet()->size(), 1);
        window.setConfig(configFromJson(nlohmann::json::parse(kTinyRun)));
        QVERIFY(window.startRun());
        QSignalSpy runEnded(&window, &MainWindow::runEnded);
        QVERIFY(runEnded.wait(120000));
        QCOMPARE(runEnded.first().first().toString(), QString("finished"));
    }

    // Closing the window while the child trains ends the child.
    void closingTheWindowEndsTheChild() {
        QTemporaryDir runs;
        auto window = std::make_unique<MainWindow>(windowOptions(runs.path()));
        PrescribeAction* prescribe = prescribeOf(*window);
        PrescribeProgress seen;
        connect(prescribe, &PrescribeAction::progressChanged, this, [&](const PrescribeProgress& p) { seen = p; });
        const QString config = runs.filePath("long.json");
        test::writeTextFile(config, kLongRun);
        QString error;
        QVERIFY(prescribe->start({config, "fp8", "0.9", "2", "20000", runs.filePath("rx")}, &error));
        QTRY_VERIFY_WITH_TIMEOUT(seen.run >= 1, 120000);
        QVERIFY(window->close());
        QVERIFY(!prescribe->isRunning());
        window.reset();
        const auto summary = test::readJsonFile(runs.filePath("rx/reference-seed-1/summary.json"));
        QCOMPARE(summary["status"].get<std::string>(), std::string("stopped"));
    }

    // A config the command refuses (a model name it does not know): the window shows the
    // command's own line, exactly as the CLI prints it to a terminal.
    void theCommandsExitTwoLineIsShownAsItIs() {
        QTemporaryDir runs;
        const QString config = runs.filePath("bad.json");
        test::writeTextFile(config, "{\"model\": {\"name\": \"no-such-model\"}}");
        const auto direct = test::runCli({"prescribe", config, "--format", "fp8", "--out", runs.filePath("direct")});
        QCOMPARE(direct.exitCode, 2);
        MainWindow window(windowOptions(runs.path()));
        PrescribeAction* prescribe = prescribeOf(window);
        QSignalSpy ended(prescribe, &PrescribeAction::ended);
        QString error;
        QVERIFY(prescribe->start({config, "fp8", "0.9", "3", "", runs.filePath("rx")}, &error));
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().first().toBool(), false);
        QCOMPARE(prescribe->message(), direct.err.trimmed());
        QVERIFY(!QFileInfo::exists(runs.filePath("rx")));
    }

    // The guide's pictures, under xvfb at 1280x800 (QT_QPA_PLATFORM=xcb): the screen while
    // the prescription runs and once its page is up. The simple CNN on Fashion-MNIST in
    // mxfp4, 150 steps, 3 seeds: all in mxfp4 is outside the fp32 band there and the
    // prescription keeps layers, so the page has a kept list and three trained arms
    // (about 10 minutes on two shared cores).
    void screenshotsForTheGuide() {
        const char* shots = std::getenv("AMPSCOPE_PRESCRIBE_SHOTS");
        if (!shots || !*shots) QSKIP("AMPSCOPE_PRESCRIBE_SHOTS names no folder for the guide's screenshots");
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        window.setGeometry(0, 0, 1280, 800);
        window.show();
        QString error;
        const QString example = QString::fromStdString(test::sourceDir()) + "/examples/fashion-mnist-fp32.json";
        QVERIFY2(window.loadConfigFile(example, &error), qPrintable(error));
        RunConfig config = window.configPanel()->config();
        config.threads = 2;
        window.setConfig(config);
        PrescribeAction* prescribe = prescribeOf(window);
        QSignalSpy ended(prescribe, &PrescribeAction::ended);
        PrescribeProgress seen;
        connect(prescribe, &PrescribeAction::progressChanged, this, [&](const PrescribeProgress& p) { seen = p; });
        prescribe->action()->trigger();
        PrescribeDialog* dialog = prescribe->dialog();
        dialog->formatField()->setCurrentText("mxfp4");
        dialog->stepsField()->setText("150");
        dialog->outField()->setText(runs.filePath("cnn-mxfp4"));
        QTest::qWait(300);
        QGuiApplication::primaryScreen()->grabWindow(0).save(QString(shots) + "/prescribe-dialog.png");
        dialog->accept();
        QTRY_VERIFY_WITH_TIMEOUT(seen.run >= 2 && seen.etaSeconds >= 0.0, 300000);
        QTest::qWait(400);  // the panel repainted before the screen is read
        QGuiApplication::primaryScreen()->grabWindow(0).save(QString(shots) + "/prescribe-progress.png");
        QVERIFY(ended.wait(1500000));
        QVERIFY2(ended.first().first().toBool(), qPrintable(prescribe->message()));
        window.replotAllNow();
        QTest::qWait(500);
        QGuiApplication::primaryScreen()->grabWindow(0).save(QString(shots) + "/prescribe-page.png");
        prescribe->page()->hide();
        QTest::qWait(300);
        window.replotAllNow();
        QGuiApplication::primaryScreen()->grabWindow(0).save(QString(shots) + "/prescribe-set.png");
        QVERIFY(!prescribe->page()->keptLayers().isEmpty());
    }

    void aMissingCliIsOneLine() {
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        auto* prescribe = window.findChild<PrescribeAction*>();
        const QString missing = runs.filePath("bin/ampscope-cli");
        prescribe->setProgram(missing);
        const QString config = runs.filePath("tiny.json");
        test::writeTextFile(config, kTinyRun);
        QString error;
        QVERIFY(!prescribe->start({config, "fp8", "0.9", "2", "4", runs.filePath("rx")}, &error));
        QCOMPARE(error, QString("ampscope-cli was not found at %1: Prescribe… runs it, and it is installed (and "
                                "built) next to the window's own program")
                            .arg(missing));
        QVERIFY(!prescribe->isRunning());
    }
};

QTEST_MAIN(PrescribeWindowTest)
#include "test_gui_prescribe.moc"
