// The Configure form: every field round-trips exactly, and invalid input is marked at its
// field with the engine's own validation message.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest/QtTest>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "configure/ConfigPanel.h"
#include "config/ConfigFieldRules.h"
#include "config/ConfigJson.h"
#include "config/ConfigValidation.h"

using namespace ampscope;
using ampscope::ui::ConfigPanel;

namespace {

// Every field the Configure panel shows set away from its default, plus fields it does not
// show (they must survive the round trip untouched).
RunConfig unusualConfig() {
    RunConfig c;
    c.name = "round-trip";
    c.seed = std::numeric_limits<uint64_t>::max();
    c.device = "cpu";
    c.threads = 3;
    c.data.dataset = "mnist_idx";
    c.data.path = "/data/mnist idx";
    c.data.synthetic_samples = 777;
    c.data.validation = "split";  // not shown
    c.data.val_fraction = 0.125;  // not shown
    c.data.inputs = "x";          // not shown (the tensors set's names)
    c.data.targets = "y";         // not shown
    c.data.val_inputs = "xv";     // not shown
    c.data.val_targets = "yv";    // not shown
    c.model.name = "mlp";
    c.model.hidden = {31, 17, 5};  // not shown
    c.precision.mode = "fp16-pure";
    c.precision.keep_fp32 = {"fc1", "loss"};
    c.precision.scaler.kind = "static";
    c.precision.scaler.init_scale = 16777216.0;
    c.precision.scaler.growth_factor = 3.0;
    c.precision.scaler.backoff_factor = 0.25;
    c.precision.scaler.growth_interval = 123;
    c.precision.fp8.format = "e4m3";
    c.precision.fp8.recipe = "current";
    c.precision.fp8.amax_history_len = 17;
    c.precision.fp8.amax_compute = "most_recent";
    c.precision.fp8.margin = 3;
    c.precision.mx.scale_rule = "rceil";
    c.precision.nvfp4.stochastic_gradients = true;
    c.optim.name = "sgd";
    c.optim.lr = 0.1 + 0.2;  // 0.30000000000000004: needs 17 digits
    c.optim.weight_decay = 1e-5;
    c.optim.clip_norm = 2.5;
    c.optim.clip_after_unscale = false;
    c.optim.momentum = 0.8;  // not shown
    c.train.epochs = 9;
    c.train.max_steps = 1000000000000LL;
    c.train.batch_size = 33;
    c.probes.every = 7;
    c.probes.locate_nonfinite = "always";
    c.faults.push_back({5, "inf_grad", "fc1", 1.0});  // not shown
    return c;
}

QString problemFor(const RunConfig& config, const std::string& field) {
    for (const FieldProblem& p : validateConfig(config))
        if (p.field == field) return QString::fromStdString(p.text());
    return QString();
}

QLineEdit* edit(ConfigPanel& panel, const char* path) {
    auto* widget = qobject_cast<QLineEdit*>(panel.fieldWidget(QString::fromLatin1(path)));
    if (!widget) qFatal("no line edit for %s", path);
    return widget;
}

}  // namespace

class GuiConfigPanelTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsEveryFieldTheIssueLists() {
        ConfigPanel panel;
        const QStringList expected = {"name",
                                      "seed",
                                      "device",
                                      "threads",
                                      "data.dataset",
                                      "data.path",
                                      "data.synthetic_samples",
                                      "model.name",
                                      "model.path",
                                      "model.probe_modules",
                                      "model.probe_depth",
                                      "precision.mode",
                                      "precision.keep_fp32",
                                      "precision.scaler.kind",
                                      "precision.scaler.init_scale",
                                      "precision.scaler.growth_factor",
                                      "precision.scaler.backoff_factor",
                                      "precision.scaler.growth_interval",
                                      "precision.fp8.format",
                                      "precision.fp8.recipe",
                                      "precision.fp8.amax_history_len",
                                      "precision.fp8.amax_compute",
                                      "precision.fp8.margin",
                                      "precision.mx.scale_rule",
                                      "precision.nvfp4.stochastic_gradients",
                                      "optim.name",
                                      "optim.lr",
                                      "optim.weight_decay",
                                      "optim.clip_norm",
                                      "optim.clip_after_unscale",
                                      "train.epochs",
                                      "train.max_steps",
                                      "train.batch_size",
                                      "probes.every",
                                      "probes.locate_nonfinite"};
        for (const QString& path : expected)
            QVERIFY2(panel.fieldWidget(path) != nullptr, qPrintable(path));
        QCOMPARE(panel.fieldPaths().size(), expected.size());
    }

    void roundTripsEveryFieldExactly() {
        ConfigPanel panel;
        const RunConfig original = unusualConfig();
        panel.setConfig(original);
        QCOMPARE(QString::fromStdString(configToJson(panel.config()).dump()),
                 QString::fromStdString(configToJson(original).dump()));
        // And the defaults.
        panel.setConfig(RunConfig{});
        QCOMPARE(QString::fromStdString(configToJson(panel.config()).dump()),
                 QString::fromStdString(configToJson(RunConfig{}).dump()));
    }

    // A user's model: its file's recorded identity survives as long as the path does.
    void roundTripsATorchScriptModelsFields() {
        ConfigPanel panel;
        RunConfig original = unusualConfig();
        original.model.name = "torchscript";
        original.model.path = "/models/my net.pt";
        original.model.file_bytes = 150564;
        original.model.sha256 = std::string(64, 'c');
        original.model.probe_modules = {"blocks.0", "blocks.1.fc2"};
        panel.setConfig(original);
        QCOMPARE(QString::fromStdString(configToJson(panel.config()).dump()),
                 QString::fromStdString(configToJson(original).dump()));
        original.model.probe_modules.clear();
        original.model.probe_depth = 2;
        panel.setConfig(original);
        QCOMPARE(QString::fromStdString(configToJson(panel.config()).dump()),
                 QString::fromStdString(configToJson(original).dump()));
        // Another file: the identity was the previous one's.
        edit(panel, "model.path")->setText("/models/other.pt");
        QVERIFY(panel.config().model.sha256.empty());
        QCOMPARE(panel.config().model.file_bytes, int64_t{0});
    }

    void editsReachTheConfig() {
        ConfigPanel panel;
        edit(panel, "optim.lr")->setText("0.0025");
        edit(panel, "train.batch_size")->setText("64");
        edit(panel, "precision.keep_fp32")->setText("fc2 ,  loss");
        edit(panel, "seed")->setText("18446744073709551615");
        qobject_cast<QComboBox*>(panel.fieldWidget("precision.mode"))->setCurrentText("bf16");
        qobject_cast<QCheckBox*>(panel.fieldWidget("optim.clip_after_unscale"))->setChecked(false);
        const RunConfig c = panel.config();
        QCOMPARE_BITS(c.optim.lr, 0.0025);
        QCOMPARE(c.train.batch_size, int64_t(64));
        QCOMPARE(c.precision.keep_fp32, (std::vector<std::string>{"fc2", "loss"}));
        QCOMPARE(c.seed, std::numeric_limits<uint64_t>::max());
        QCOMPARE(QString::fromStdString(c.precision.mode), QString("bf16"));
        QCOMPARE(c.optim.clip_after_unscale, false);
        QVERIFY(panel.isValid());
    }

    void invalidValuesAreMarkedWithTheEngineMessage() {
        ConfigPanel panel;
        QSignalSpy validity(&panel, &ConfigPanel::validityChanged);
        QVERIFY(panel.isValid());

        edit(panel, "optim.lr")->setText("-1");
        RunConfig expected;
        expected.optim.lr = -1;
        const QString lrMessage = problemFor(expected, "optim.lr");
        QVERIFY(!lrMessage.isEmpty());
        QVERIFY(!panel.isValid());
        QCOMPARE(validity.count(), 1);
        QCOMPARE(validity.last().at(0).toBool(), false);
        QWidget* lr = panel.fieldWidget("optim.lr");
        QVERIFY(lr->property("invalid").toBool());
        QCOMPARE(lr->toolTip(), lrMessage);
        QVERIFY(lr->styleSheet().contains("border"));
        QVERIFY(panel.problemsText().contains(lrMessage));

        edit(panel, "train.batch_size")->setText("0");
        expected.train.batch_size = 0;
        const QString batchMessage = problemFor(expected, "train.batch_size");
        QCOMPARE(panel.fieldMessage("train.batch_size"), batchMessage);
        QVERIFY(panel.fieldWidget("train.batch_size")->property("invalid").toBool());
        QVERIFY(panel.problemsText().contains(batchMessage));
        QCOMPARE(panel.problems().size(), std::size_t(2));
        // Other fields stay unmarked.
        QVERIFY(!panel.fieldWidget("optim.weight_decay")->property("invalid").toBool());

        edit(panel, "optim.lr")->setText("0.001");
        edit(panel, "train.batch_size")->setText("128");
        QVERIFY(panel.isValid());
        QCOMPARE(validity.count(), 2);
        QCOMPARE(validity.last().at(0).toBool(), true);
        QVERIFY(!lr->property("invalid").toBool());
        QVERIFY(lr->styleSheet().isEmpty());
        QVERIFY(panel.problemsText().isEmpty());
    }

    void textThatIsNotANumberIsAProblem() {
        ConfigPanel panel;
        edit(panel, "optim.weight_decay")->setText("abc");
        QVERIFY(!panel.isValid());
        QVERIFY(panel.fieldMessage("optim.weight_decay").contains("must be a number"));
        edit(panel, "train.epochs")->setText("2.5");
        QVERIFY(panel.fieldMessage("train.epochs").contains("must be an integer"));
    }

    void listElementsMarkTheirListField() {
        ConfigPanel panel;
        edit(panel, "precision.keep_fp32")->setText("fc1,,loss");
        QVERIFY(!panel.isValid());
        QVERIFY(panel.fieldMessage("precision.keep_fp32").contains("precision.keep_fp32[1]"));
        QVERIFY(panel.fieldWidget("precision.keep_fp32")->property("invalid").toBool());
    }

    void unknownChoiceIsShownAndRefused() {
        ConfigPanel panel;
        RunConfig c;
        c.precision.mode = "fp6";
        panel.setConfig(c);
        auto* mode = qobject_cast<QComboBox*>(panel.fieldWidget("precision.mode"));
        QCOMPARE(mode->currentText(), QString("fp6"));
        QVERIFY(!panel.isValid());
        QCOMPARE(panel.fieldMessage("precision.mode"), problemFor(c, "precision.mode"));
    }

    void missingFashionMnistIsExplained() {
        ConfigPanel panel;
        panel.setFashionMnistDirectory("/nonexistent/fashion-mnist");
        RunConfig c;  // fashion_mnist, default path
        panel.setConfig(c);
        QVERIFY(panel.datasetNote().contains("install dataset-fashion-mnist or pick IDX files"));
        QVERIFY(panel.datasetNote().contains("synthetic sets work without it"));
        c.data.dataset = "spirals";
        panel.setConfig(c);
        QVERIFY(panel.datasetNote().isEmpty());
        c.data.dataset = "mnist_idx";
        c.data.path = "/nonexistent/idx";
        panel.setConfig(c);
        QVERIFY(panel.datasetNote().contains("does not exist"));
        // The tensors set names one file.
        c.data.dataset = "tensors";
        c.data.path = "/nonexistent/batches.safetensors";
        panel.setConfig(c);
        QCOMPARE(panel.datasetNote(), QString("/nonexistent/batches.safetensors does not exist."));
        c.data.path = QCoreApplication::applicationFilePath().toStdString();  // a file that exists
        panel.setConfig(c);
        QVERIFY2(panel.datasetNote().isEmpty(), qPrintable(panel.datasetNote()));
    }

    // Limits and help are core's (config/ConfigFieldRules.h): each field's tooltip is its
    // rule's help, a ranged field carries the rule's limits, and a value just outside them
    // is refused with validation's message, worded from the same numbers.
    void limitsAndHelpComeFromCoresRules() {
        ConfigPanel panel;
        int ranged = 0;
        for (const QString& path : panel.fieldPaths()) {
            const ConfigFieldRule& rule = configFieldRule(path.toStdString());
            QWidget* widget = panel.fieldWidget(path);
            const QString help = QString::fromStdString(configFieldHelp(rule.path));
            QCOMPARE(widget->toolTip(), help);
            if (!rule.limits) {
                QVERIFY2(!widget->property("limits").isValid(), qPrintable(path));
                continue;
            }
            ++ranged;
            const NumberLimits& limits = *rule.limits;
            const QString text = QString::fromStdString(limits.text());
            QCOMPARE(widget->property("limits").toString(), text);
            QVERIFY2(help.endsWith(" (" + text + ")"), qPrintable(help));
            QCOMPARE(widget->property("minimum").isValid(), std::isfinite(limits.low));
            QCOMPARE(widget->property("maximum").isValid(), std::isfinite(limits.high));
            if (std::isfinite(limits.low)) QVERIFY(widget->property("minimum").toDouble() == limits.low);
            if (std::isfinite(limits.high)) QVERIFY(widget->property("maximum").toDouble() == limits.high);

            const bool lowSide = std::isfinite(limits.low);
            const double limit = lowSide ? limits.low : limits.high;
            const bool closed = (lowSide ? limits.lowBound : limits.highBound) == LimitBound::Closed;
            const double outward = lowSide ? -1.0 : 1.0;
            const double outside = !closed ? limit
                                   : limits.integer ? limit + outward
                                                    : std::nextafter(limit, outward * INFINITY);
            auto* line = qobject_cast<QLineEdit*>(widget);
            QVERIFY2(line, qPrintable(path));
            line->setText(QString::number(outside, 'g', 17));
            QVERIFY2(panel.fieldMessage(path).startsWith(path + ": must be " + text + " (got "),
                     qPrintable(panel.fieldMessage(path)));
            panel.setConfig(RunConfig{});
        }
        // threads, synthetic samples, probe depth, the scaler's four, fp8's two, the
        // optimizer's three, epochs, max steps, batch size and the probe cadence.
        QCOMPARE(ranged, 16);
    }

    void readOnlyWhileARunTrains() {
        ConfigPanel panel;
        panel.setEditable(false);
        QVERIFY(!panel.fieldWidget("optim.lr")->isEnabled());
        panel.setEditable(true);
        QVERIFY(panel.fieldWidget("optim.lr")->isEnabled());
    }
};

QTEST_MAIN(GuiConfigPanelTest)
#include "test_gui_config_panel.moc"
