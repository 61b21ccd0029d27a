// The window's side of a user's TorchScript model: the module tree from a run's
// model_modules record (through the record dispatcher), the Configure panel loading a
// picked file (and refusing a bad one), an opened run whose tree comes from its records
// alone, the NaN inspector pointing at the culprit module, the rerun that keeps it in
// fp32, and the report naming the model file. One real run of the residual MLP fixture
// (a NaN injected in blocks.1.fc1) feeds them.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "OneRunSet.h"
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "configure/ConfigPanel.h"
#include "feed/EngineBridge.h"
#include "window/MainWindow.h"
#include "window/WindowActions.h"
#include "feed/RunControl.h"
#include "runset/RecordDispatcher.h"
#include "common/Sha256.h"
#include "common/Text.h"
#include "config/ConfigJson.h"
#include "engine/Engine.h"
#include "models/ScriptModuleInfo.h"
#include "probes/ProbeRecords.h"
#include "report/ReportRun.h"
#include "report/ReportText.h"
#include "report/ReportWriter.h"
#include "run/ModelModulesRecord.h"
#include "run/RunReader.h"
#include "views/ModuleTreeView.h"
#include "views/NanInspectorView.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

QString fixtures() { return qEnvironmentVariable("AMPSCOPE_SCRIPT_FIXTURES"); }
QString fixture(const char* name) { return fixtures() + QLatin1Char('/') + QLatin1String(name); }

// Samples in the shape the residual MLP takes (784 inputs, 10 classes), written as a
// safetensors file (an 8-byte little-endian header length, the JSON header, the data),
// so the run needs no installed dataset.
void writeSamples(const QString& path, int64_t n) {
    std::vector<float> x(static_cast<std::size_t>(n * 784));
    std::vector<int64_t> y(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 255) / 255.0f - 0.5f;
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<int64_t>(i % 10);
    const int64_t xBytes = static_cast<int64_t>(x.size() * sizeof(float));
    const int64_t yBytes = static_cast<int64_t>(y.size() * sizeof(int64_t));
    nlohmann::json header;
    header["x"] = {{"dtype", "F32"}, {"shape", {n, 784}}, {"data_offsets", {0, xBytes}}};
    header["y"] = {{"dtype", "I64"}, {"shape", {n}}, {"data_offsets", {xBytes, xBytes + yBytes}}};
    std::string text = header.dump();
    while (text.size() % 8) text += ' ';
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    uint64_t length = text.size();
    char lengthBytes[8];
    for (int i = 0; i < 8; ++i) lengthBytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
    file.write(lengthBytes, 8);
    file.write(text.data(), static_cast<qint64>(text.size()));
    file.write(reinterpret_cast<const char*>(x.data()), xBytes);
    file.write(reinterpret_cast<const char*>(y.data()), yBytes);
}

// The config the window would train: a TorchScript model on the samples above.
RunConfig scriptRunConfig(const QString& model, const QString& samples) {
    RunConfig c;
    c.threads = 1;
    c.device = "cpu";
    c.data.dataset = "tensors";
    c.data.path = samples.toStdString();
    c.data.inputs = "x";
    c.data.targets = "y";
    c.data.validation = "split";
    c.data.val_fraction = 0.25;
    c.model.name = "torchscript";
    c.model.path = model.toStdString();
    c.precision.mode = "fp16";
    c.train.epochs = 1;
    c.train.batch_size = 32;
    c.probes.every = 2;
    return c;
}

// A run directory's records of one type.
std::vector<nlohmann::json> recordsOf(const QString& dir, const char* type) {
    std::vector<nlohmann::json> out;
    for (const auto& r : readRunDirectory(dir.toStdString()).events)
        if (r.value("type", "") == type) out.push_back(r);
    return out;
}

// The qualified name a module's parent has ("" for the model's children and itself).
QString parentName(const QString& name) {
    const int dot = name.lastIndexOf(QLatin1Char('.'));
    return dot < 0 ? QString() : name.left(dot);
}

QString layerOf(const ScriptModuleInfo& m) {
    return m.name.empty() ? ModuleTreeView::modelItselfName() : QString::fromStdString(m.name);
}

// Every RunObserver call the dispatcher makes, by kind.
class CountingObserver : public RunObserver {
public:
    void beginRun(const RunContext&) override {}
    void appendSteps(const std::vector<StepMetrics>&) override {}
    void takeModelModules(const ModelModulesRecord& record) override { modules.push_back(record); }
    void takeRecord(const nlohmann::json& record) override { types.insert(record.value("type", "")); }
    void endOfBatch() override {}
    std::vector<ModelModulesRecord> modules;
    std::set<std::string> types;
};

void feedRun(const QString& dir, const std::vector<RunObserver*>& views) {
    RunRecordReader reader(dir.toStdString());
    RecordDispatcher dispatcher(views);
    dispatcher.beginRun({RunConfig{}, QStringLiteral("run"), dir, false});
    dispatchRunRecords(reader, dispatcher);
    dispatcher.endBatch();
}

}  // namespace

class GuiScriptModelTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_;    // the run's model file, a copy that is deleted after the run
    QString samples_;
    QString runDir_;
    QString culprit_;  // the layer the run's nonfinite record names
    const QString faultLayer_ = QStringLiteral("blocks.1.fc1");

    MainWindowOptions windowOptions(const QString& runs) {
        MainWindowOptions o;
        o.persistSettings = false;
        o.runsRoot = runs;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!QFile::exists(fixture("residual_mlp.pt")))
            QSKIP("no TorchScript fixtures (the script_model_fixtures test writes them with python3-torch)");
        QVERIFY(tmp_.isValid());
        qputenv("XDG_CONFIG_HOME", tmp_.filePath("config").toUtf8());
        samples_ = tmp_.filePath("samples.safetensors");
        writeSamples(samples_, 256);
        model_ = tmp_.filePath("mynet.pt");
        QVERIFY(QFile::copy(fixture("residual_mlp.pt"), model_));

        RunConfig config = scriptRunConfig(model_, samples_);
        config.faults = {FaultConfig{4, "nan_activation", faultLayer_.toStdString(), 1.0}};
        runDir_ = tmp_.filePath("run");
        Engine engine(config, runDir_.toStdString());
        engine.start();
        engine.wait();
        const auto nonfinite = recordsOf(runDir_, "nonfinite");
        QCOMPARE(nonfinite.size(), std::size_t{1});
        culprit_ = QString::fromStdString(nonFiniteRecordFromJson(nonfinite[0]).event.layer);
        QCOMPARE(recordsOf(runDir_, "model_modules").size(), std::size_t{1});
    }

    // The record reaches views parsed, once, through the dispatcher's own rule; the tree
    // nests each module under its parent and marks exactly the run's layers.
    void treeFromTheRecordNestsModulesAndMarksTheLayers() {
        ModuleTreeView tree;
        OneRunSet treeFeed;
        tree.followFocusedRun(&treeFeed.set);  // the tree reads the run set, not records
        CountingObserver counting;
        feedRun(runDir_, {&treeFeed, &counting});
        QCOMPARE(counting.modules.size(), std::size_t{1});
        QVERIFY(!counting.types.count("model_modules"));  // not also as a raw record
        const auto expected = modelModulesFromJson(recordsOf(runDir_, "model_modules")[0]);
        QVERIFY(expected);
        QCOMPARE(counting.modules[0].modules, expected->modules);
        QVERIFY(expected->modules.size() > 3);

        // One root, the model itself; every module under its qualified parent.
        QCOMPARE(tree.tree()->topLevelItemCount(), 1);
        QCOMPARE(tree.tree()->topLevelItem(0)->text(ModuleTreeView::kModuleColumn),
                 ModuleTreeView::modelItselfName());
        QTreeWidgetItemIterator all(tree.tree());
        int items = 0;
        for (; *all; ++all) ++items;
        QCOMPARE(items, static_cast<int>(expected->modules.size()));
        for (const ScriptModuleInfo& m : expected->modules) {
            QTreeWidgetItem* item = tree.itemFor(layerOf(m));
            QVERIFY2(item, qPrintable(layerOf(m)));
            QCOMPARE(item->text(ModuleTreeView::kModuleColumn), layerOf(m));
            QCOMPARE(item->text(ModuleTreeView::kTypeColumn), QString::fromStdString(m.type));
            QCOMPARE(item->text(ModuleTreeView::kProbedColumn).isEmpty(), !m.probed);
            if (m.name.empty()) continue;
            const QString parent = parentName(QString::fromStdString(m.name));
            QTreeWidgetItem* parentItem =
                tree.itemFor(parent.isEmpty() ? ModuleTreeView::modelItselfName() : parent);
            QCOMPARE(item->parent(), parentItem);
        }

        // The ✓ rows are the run's layers, as run_info lists them.
        QStringList layers;
        const nlohmann::json runInfo = recordsOf(runDir_, "run_info").at(0);
        for (const auto& name : runInfo.at("layers"))
            layers << QString::fromStdString(name.get<std::string>());
        QVERIFY(!layers.isEmpty());
        QStringList marked;
        for (QTreeWidgetItemIterator it(tree.tree()); *it; ++it)
            if (!(*it)->text(ModuleTreeView::kProbedColumn).isEmpty())
                marked << (*it)->text(ModuleTreeView::kModuleColumn);
        layers.sort();
        marked.sort();
        QCOMPARE(marked, layers);
        QVERIFY(tree.caption().contains(model_));

        // A damaged record shows what still reads: an entry without a name is left out.
        std::vector<RunObserver*> views{&counting, &treeFeed};
        RecordDispatcher dispatcher(views);
        dispatcher.beginRun({});
        dispatcher.take({{"type", "model_modules"},
                         {"modules", {{{"name", ""}, {"type", "Net"}}, {{"type", "Linear"}, {"depth", 1}}}}});
        dispatcher.endBatch();
        QCOMPARE(dispatcher.malformedRecords(), int64_t{0});
        QCOMPARE(counting.modules.size(), std::size_t{2});
        QCOMPARE(counting.modules[1].modules.size(), std::size_t{1});
        QCOMPARE(tree.tree()->topLevelItemCount(), 1);
        QCOMPARE(tree.tree()->topLevelItem(0)->childCount(), 0);
    }

    void panelLoadsAPickedFile() {
        ConfigPanel panel;
        panel.show();
        RunConfig zoo = scriptRunConfig(QString(), samples_);
        zoo.model.name = "mlp";
        panel.setConfig(zoo);
        QVERIFY(!panel.moduleTree()->isVisibleTo(&panel));
        QVERIFY(!panel.fieldWidget("model.path")->isVisibleTo(&panel));

        RunConfig script = scriptRunConfig(QString(), samples_);
        script.model.sha256 = std::string(64, 'a');  // a previous file's, as in a run's config
        panel.setConfig(script);
        QVERIFY(panel.fieldWidget("model.path")->isVisibleTo(&panel));
        QVERIFY(!panel.isValid());  // no path yet
        panel.setModelFile(fixture("residual_mlp.pt"));
        QVERIFY2(panel.isValid(), qPrintable(panel.problemsText()));
        QVERIFY(panel.modelFileLoaded());
        QCOMPARE(panel.config().model.path, fixture("residual_mlp.pt").toStdString());
        QVERIFY(panel.config().model.sha256.empty());  // it described another file
        QVERIFY(panel.moduleTree()->isVisibleTo(&panel));
        QCOMPARE(panel.moduleTree()->modules(),
                 inspectTorchScriptFile(fixture("residual_mlp.pt").toStdString()));
        QVERIFY(panel.moduleTree()->itemFor(faultLayer_));
        QVERIFY(panel.moduleTree()->caption().contains("residual_mlp.pt"));

        // The probe fields ask the model again.
        auto* probe = qobject_cast<QLineEdit*>(panel.fieldWidget("model.probe_modules"));
        QVERIFY(probe);
        probe->setText("blocks.0, blocks.1");
        Q_EMIT probe->editingFinished();
        const auto probed = inspectTorchScriptFile(fixture("residual_mlp.pt").toStdString(),
                                                   {"blocks.0", "blocks.1"});
        QCOMPARE(panel.moduleTree()->modules(), probed);
        QVERIFY(!panel.moduleTree()->itemFor("blocks.1")->text(ModuleTreeView::kProbedColumn).isEmpty());
    }

    void panelShowsWhyAFileCannotBeUsed() {
        ConfigPanel panel;
        panel.show();
        panel.setConfig(scriptRunConfig(QString(), samples_));
        panel.setModelFile(fixture("residual_mlp.pt"));
        QVERIFY(panel.isValid());
        QSignalSpy validity(&panel, &ConfigPanel::validityChanged);
        for (const char* bad : {"not_a_model.pt", "pickled_module.pt", "no_forward.pt"}) {
            panel.setModelFile(fixture(bad));
            QVERIFY2(!panel.isValid(), bad);
            const QString message = panel.fieldMessage("model.path");
            QVERIFY2(message.contains(QLatin1String(bad)), qPrintable(message));
            QVERIFY2(!message.contains('\n'), qPrintable(message));
            QCOMPARE(panel.modelFileError().contains(QLatin1String(bad)), true);
            QVERIFY(panel.modelNote().contains(QLatin1String(bad)));
            QVERIFY(panel.findChild<QLabel*>("modelNote")->isVisibleTo(&panel));
            QVERIFY(panel.moduleTree()->isEmpty());  // the previous file's tree is gone
        }
        QCOMPARE(validity.count(), 1);
        QCOMPARE(validity.at(0).at(0).toBool(), false);
        panel.setModelFile(fixture("residual_mlp.pt"));
        QVERIFY(panel.isValid());
        QVERIFY(panel.modelFileError().isEmpty());
        QCOMPARE(validity.count(), 2);
    }

    // setConfig alone loads nothing (an opened run's config); a typed path loads once
    // confirmed, never while it is typed.
    void panelLoadsOnlyWhatTheUserNames() {
        ConfigPanel panel;
        panel.show();
        RunConfig config = scriptRunConfig(fixture("not_a_model.pt"), samples_);
        panel.setConfig(config);
        QVERIFY(!panel.modelFileLoaded());
        QVERIFY(panel.isValid());
        QVERIFY(panel.modelFileError().isEmpty());
        panel.inspectModelFile();  // the user opened this config
        QVERIFY(!panel.isValid());

        auto* edit = qobject_cast<QLineEdit*>(panel.fieldWidget("model.path"));
        edit->setFocus();
        edit->clear();
        QTest::keyClicks(edit, fixture("residual_mlp.pt"));
        QVERIFY(!panel.modelFileLoaded());
        QVERIFY(panel.moduleTree()->isEmpty());
        QVERIFY(panel.modelNote().contains("Enter"));
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY(panel.modelFileLoaded());
        QVERIFY(!panel.moduleTree()->isEmpty());
        QVERIFY(panel.isValid());
    }

    // --config and Open config… load the model the config names; a bad one keeps Start off.
    void windowOpensAConfigWithItsModuleTree() {
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        const QString good = tmp_.filePath("good.json");
        const QString bad = tmp_.filePath("bad.json");
        saveConfigFile(scriptRunConfig(fixture("residual_mlp.pt"), samples_), good.toStdString());
        saveConfigFile(scriptRunConfig(fixture("not_a_model.pt"), samples_), bad.toStdString());
        QString error;
        QVERIFY2(window.loadConfigFile(bad, &error), qPrintable(error));
        QVERIFY(!window.actions()->startAction()->isEnabled());
        QVERIFY(window.configPanel()->modelFileError().contains("not_a_model.pt"));
        QVERIFY(!window.startRun());
        QVERIFY2(window.loadConfigFile(good, &error), qPrintable(error));
        QVERIFY(window.actions()->startAction()->isEnabled());
        QVERIFY(window.configPanel()->modelFileLoaded());
        QVERIFY(window.configPanel()->moduleTree()->itemFor(faultLayer_));
    }

    // An opened run's tree is its record's: the model file is gone, and nothing complains.
    void openedRunShowsTheTreeFromItsRecords() {
        const QString gone = tmp_.filePath("gone-run");
        QVERIFY(QDir().mkpath(gone));
        for (const char* name : {"config.json", "events.jsonl", "summary.json"})
            QVERIFY(QFile::copy(runDir_ + "/" + name, gone + "/" + name));
        // The run's model file, moved away: loading it would fail.
        const QString moved = tmp_.filePath("moved.pt");
        QVERIFY(QFile::rename(model_, moved));
        struct PutBack {
            QString from, to;
            ~PutBack() { QFile::rename(from, to); }
        } putBack{moved, model_};
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        QString error;
        QVERIFY2(window.openRun(gone, &error), qPrintable(error));
        ConfigPanel* panel = window.configPanel();
        QVERIFY(!panel->modelFileLoaded());
        QVERIFY(panel->modelFileError().isEmpty());
        QVERIFY(!panel->moduleTree()->isEmpty());
        QVERIFY(panel->moduleTree()->caption().contains(model_));
        QVERIFY(panel->modelNote().contains("record"));
        QVERIFY(window.views().nanInspector->moduleTree()->isVisibleTo(window.views().nanInspector));
        QVERIFY(!window.views().nanInspector->layerList()->isVisibleTo(window.views().nanInspector));
    }

    void nanInspectorPointsAtTheCulpritModule() {
        QCOMPARE(culprit_, faultLayer_);  // where the fault was injected
        OneRunSet inspectorFeed;
        NanInspectorView inspector(&inspectorFeed.set);
        inspector.resize(1000, 500);
        inspector.show();
        QSignalSpy rerun(&inspector, &NanInspectorView::rerunWithLayerInFp32);
        feedRun(runDir_, {&inspectorFeed});
        QVERIFY(inspector.hasEvent());
        ModuleTreeView* tree = inspector.moduleTree();
        QVERIFY(tree->isVisible());
        QTreeWidgetItem* item = tree->tree()->currentItem();
        QVERIFY(item);
        QCOMPARE(item->text(ModuleTreeView::kModuleColumn), culprit_);
        QVERIFY(item->isSelected());
        QVERIFY(item->font(ModuleTreeView::kModuleColumn).bold());
        QCOMPARE(item->foreground(ModuleTreeView::kModuleColumn).color(), ModuleTreeView::culpritColor());
        QVERIFY(!item->icon(ModuleTreeView::kModuleColumn).isNull());
        for (QTreeWidgetItem* parent = item->parent(); parent; parent = parent->parent())
            QVERIFY(parent->isExpanded());
        QCOMPARE(tree->highlightedModule(), culprit_);
        // No other module is marked.
        for (QTreeWidgetItemIterator it(tree->tree()); *it; ++it)
            if (*it != item) QVERIFY(!(*it)->font(ModuleTreeView::kModuleColumn).bold());

        // The header names the qualified module and its type, from the record.
        const QString type = tree->typeOf(culprit_);
        QVERIFY(!type.isEmpty());
        QVERIFY2(inspector.headerText().contains(QStringLiteral("module <b>%1</b> (%2)").arg(culprit_, type)),
                 qPrintable(inspector.headerText()));
        const NonFiniteEvent event = nonFiniteRecordFromJson(recordsOf(runDir_, "nonfinite")[0]).event;
        if (!event.op.empty())
            QVERIFY(inspector.headerText().contains("First operator with a non-finite output"));

        // Clicking a module finds its rows; the fix names the qualified module.
        QVERIFY(inspector.rerunButton()->isEnabled());
        QVERIFY(inspector.rerunButton()->text().contains(culprit_));
        QTest::mouseClick(inspector.rerunButton(), Qt::LeftButton);
        QCOMPARE(rerun.count(), 1);
        QCOMPARE(rerun.at(0).at(0).toString(), culprit_);

        // A name the tree lacks marks nothing; "(model)" is the root.
        QVERIFY(!tree->highlightModule("loss", QString()));
        QVERIFY(tree->highlightModule(ModuleTreeView::modelItselfName(), QString()));
        QCOMPARE(tree->tree()->currentItem(), tree->tree()->topLevelItem(0));
        // One mark at a time: the earlier one is gone.
        QVERIFY(!tree->itemFor(culprit_)->font(ModuleTreeView::kModuleColumn).bold());
    }

    // The fix for an opened run: the qualified module in precision.keep_fp32, and the new
    // run trains with it there.
    void rerunKeepsTheQualifiedModuleInFp32() {
        QTemporaryDir runs;
        MainWindow window(windowOptions(runs.path()));
        QString error;
        QVERIFY2(window.openRun(runDir_, &error), qPrintable(error));
        NanInspectorView* inspector = window.views().nanInspector;
        QCOMPARE(inspector->culpritLayer(), culprit_);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QTest::mouseClick(inspector->rerunButton(), Qt::LeftButton);
        QVERIFY(window.runControl()->bridge()->isActive());
        QCOMPARE(window.configPanel()->config().precision.keep_fp32,
                 std::vector<std::string>{culprit_.toStdString()});
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 120000);
        QCOMPARE(ended.at(0).at(0).toString(), QString("finished"));
        const auto config = readRunDirectory(window.runDirectory().toStdString()).config;
        QCOMPARE(config["precision"]["keep_fp32"], nlohmann::json::array({culprit_.toStdString()}));
        // The live run's record refilled the trees; the inspector marks its culprit again.
        QVERIFY(!window.configPanel()->moduleTree()->isEmpty());
        QVERIFY(inspector->moduleTree()->isVisibleTo(inspector));
        if (inspector->hasEvent())
            QCOMPARE(inspector->moduleTree()->highlightedModule(), inspector->culpritLayer());
    }

    void reportNamesTheModelFileAndItsProbedModules() {
        uint64_t bytes = 0;
        const std::string sha = sha256OfFile(model_.toStdString(), &bytes);
        const ReportRun run = loadReportRun(runDir_);
        QVERIFY(run.modelFile);
        QCOMPARE(run.modelFile->sha256.toStdString(), sha);
        QCOMPARE(run.modelFile->bytes, static_cast<int64_t>(bytes));
        QCOMPARE(run.modelFile->path, model_);
        QVERIFY(run.modelFile->hasModuleRecord);

        const QString html = tmp_.filePath("report.html");
        ReportOptions options;
        options.outputPath = html;
        QCOMPARE(writeReport({runDir_}, options), QString());
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        // In the run facts (the config summary below them holds the same values as text).
        const auto fact = [](const QString& key, const QString& value) {
            return QStringLiteral("<td class=\"key\">%1</td><td>%2</td>").arg(key, value.toHtmlEscaped());
        };
        QVERIFY(text.contains(fact("SHA-256", QString::fromStdString(sha))));
        QVERIFY(text.contains(fact("Model file", model_)));
        QVERIFY(text.contains(QStringLiteral("<td class=\"key\">File size</td><td>%1 (%2 bytes)</td>")
                                  .arg(QString::fromStdString(formatBytes(static_cast<int64_t>(bytes))))
                                  .arg(bytes)));
        QVERIFY(text.contains("Probed modules"));
        const nlohmann::json runInfo = recordsOf(runDir_, "run_info").at(0);
        QVERIFY(!runInfo.at("layers").empty());
        for (const auto& name : runInfo.at("layers"))
            QVERIFY2(text.contains(QStringLiteral("<td class=\"key\">%1</td>")
                                       .arg(QString::fromStdString(name.get<std::string>()).toHtmlEscaped())),
                     name.get<std::string>().c_str());
        QVERIFY(text.contains(QStringLiteral("module <b>%1</b>").arg(culprit_)));

        // A zoo model's report has no model file rows.
        ReportRun zoo = run;
        zoo.modelFile.reset();
        QVERIFY(!report_text::runFactsHtml(zoo, false).contains("SHA-256"));
    }
};

QTEST_MAIN(GuiScriptModelTest)
#include "test_gui_script_model.moc"
