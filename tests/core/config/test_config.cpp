// The config layer: RunConfig <-> JSON, strict parsing, validation rules, config
// files and "--set" overrides. Messages are checked for the field path and the words
// a user needs, since the CLI prints them as its one line.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QStringList>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "ExactCompare.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "config/ActivationEstimate.h"
#include "config/ConfigValidation.h"
#include "config/RunConfig.h"
#include "TestSupport.h"

using namespace ampscope;
using nlohmann::json;

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

// Runs code that must throw InputError and returns its message ("" when it did not).
QString inputErrorOf(const std::function<void()>& code) {
    try {
        code();
    } catch (const InputError& error) {
        return QString::fromUtf8(error.what());
    }
    return {};
}

QString fromJsonError(const json& document) {
    return inputErrorOf([&] { configFromJson(document); });
}

// Defaults with a JSON merge patch laid over them (RFC 7386: objects merge, lists
// and values replace), as a user editing one field of a complete config.json would.
json patched(const std::string& patchText) {
    json document = configToJson(RunConfig{});
    document.merge_patch(json::parse(patchText));
    return document;
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

void compareFaults(const FaultConfig& a, const FaultConfig& b) {
    QCOMPARE(a.step, b.step);
    QCOMPARE(qs(a.kind), qs(b.kind));
    QCOMPARE(qs(a.layer), qs(b.layer));
    QCOMPARE_BITS(a.factor, b.factor);
}

// Field by field, so that a field the JSON layer forgets shows up by name.
void compareConfigs(const RunConfig& a, const RunConfig& b) {
    QCOMPARE(a.schema_version, b.schema_version);
    QCOMPARE(qs(a.name), qs(b.name));
    QCOMPARE(a.seed, b.seed);
    QCOMPARE(qs(a.device), qs(b.device));
    QCOMPARE(a.threads, b.threads);

    QCOMPARE(qs(a.data.dataset), qs(b.data.dataset));
    QCOMPARE(qs(a.data.path), qs(b.data.path));
    QCOMPARE(qs(a.data.validation), qs(b.data.validation));
    QCOMPARE_BITS(a.data.val_fraction, b.data.val_fraction);
    QCOMPARE(a.data.subset, b.data.subset);
    QCOMPARE(a.data.normalize, b.data.normalize);
    QCOMPARE(a.data.synthetic_samples, b.data.synthetic_samples);
    QCOMPARE(qs(a.data.inputs), qs(b.data.inputs));
    QCOMPARE(qs(a.data.targets), qs(b.data.targets));
    QCOMPARE(qs(a.data.val_inputs), qs(b.data.val_inputs));
    QCOMPARE(qs(a.data.val_targets), qs(b.data.val_targets));

    QCOMPARE(qs(a.model.name), qs(b.model.name));
    QVERIFY(a.model.hidden == b.model.hidden);
    QCOMPARE(qs(a.model.activation), qs(b.model.activation));
    QCOMPARE(qs(a.model.norm), qs(b.model.norm));
    QVERIFY(a.model.blocks == b.model.blocks);
    QCOMPARE(a.model.patch, b.model.patch);
    QCOMPARE(a.model.dim, b.model.dim);
    QCOMPARE(a.model.heads, b.model.heads);
    QCOMPARE(a.model.depth, b.model.depth);
    QCOMPARE(a.model.mlp_ratio, b.model.mlp_ratio);

    QCOMPARE(qs(a.precision.mode), qs(b.precision.mode));
    QCOMPARE(qs(a.precision.scaler.kind), qs(b.precision.scaler.kind));
    QCOMPARE_BITS(a.precision.scaler.init_scale, b.precision.scaler.init_scale);
    QCOMPARE_BITS(a.precision.scaler.growth_factor, b.precision.scaler.growth_factor);
    QCOMPARE_BITS(a.precision.scaler.backoff_factor, b.precision.scaler.backoff_factor);
    QCOMPARE(a.precision.scaler.growth_interval, b.precision.scaler.growth_interval);
    QVERIFY(a.precision.keep_fp32 == b.precision.keep_fp32);
    QCOMPARE(qs(a.precision.emulate), qs(b.precision.emulate));
    QCOMPARE(qs(a.precision.fp8.format), qs(b.precision.fp8.format));
    QCOMPARE(qs(a.precision.fp8.recipe), qs(b.precision.fp8.recipe));
    QCOMPARE(a.precision.fp8.amax_history_len, b.precision.fp8.amax_history_len);
    QCOMPARE(qs(a.precision.fp8.amax_compute), qs(b.precision.fp8.amax_compute));
    QCOMPARE(a.precision.fp8.margin, b.precision.fp8.margin);
    QCOMPARE(qs(a.precision.mx.scale_rule), qs(b.precision.mx.scale_rule));
    QCOMPARE(a.precision.nvfp4.stochastic_gradients, b.precision.nvfp4.stochastic_gradients);

    QCOMPARE(qs(a.optim.name), qs(b.optim.name));
    QCOMPARE_BITS(a.optim.lr, b.optim.lr);
    QCOMPARE_BITS(a.optim.momentum, b.optim.momentum);
    QCOMPARE_BITS(a.optim.weight_decay, b.optim.weight_decay);
    QCOMPARE_BITS(a.optim.beta1, b.optim.beta1);
    QCOMPARE_BITS(a.optim.beta2, b.optim.beta2);
    QCOMPARE_BITS(a.optim.eps, b.optim.eps);
    QCOMPARE_BITS(a.optim.clip_norm, b.optim.clip_norm);
    QCOMPARE(a.optim.clip_after_unscale, b.optim.clip_after_unscale);

    QCOMPARE(a.train.epochs, b.train.epochs);
    QCOMPARE(a.train.max_steps, b.train.max_steps);
    QCOMPARE(a.train.batch_size, b.train.batch_size);
    QCOMPARE(a.train.eval_batch_size, b.train.eval_batch_size);

    QCOMPARE(a.probes.every, b.probes.every);
    QCOMPARE(a.probes.shadow_every, b.probes.shadow_every);
    QCOMPARE(a.probes.format_sweep_every, b.probes.format_sweep_every);
    QCOMPARE(a.probes.sensitivity_every, b.probes.sensitivity_every);
    QCOMPARE(a.probes.sensitivity_formats, b.probes.sensitivity_formats);
    QCOMPARE(a.probes.ring_steps, b.probes.ring_steps);

    QCOMPARE(a.faults.size(), b.faults.size());
    for (std::size_t i = 0; i < a.faults.size(); ++i) {
        compareFaults(a.faults[i], b.faults[i]);
        if (QTest::currentTestFailed()) return;
    }
}

// Every field different from its default, and still valid.
RunConfig nonDefaultConfig() {
    RunConfig c;
    c.name = "lesson \"one\" – ünïcode";
    c.seed = std::numeric_limits<uint64_t>::max();  // needs JSON's unsigned integers
    c.device = "cpu";
    c.threads = 3;
    c.data.dataset = "mnist_idx";
    c.data.path = "/data/mnist";
    c.data.validation = "split";
    c.data.val_fraction = 0.1 + 0.2;  // 0.30000000000000004: must survive text exactly
    c.data.subset = 5000;
    c.data.normalize = false;
    c.data.synthetic_samples = 2048;
    c.data.inputs = "x \"train\"";  // tensor names are any text a JSON key can be
    c.data.targets = "y/ünï";
    c.data.val_inputs = "xv";
    c.data.val_targets = "yv";
    c.model.name = "deep_cnn";
    c.model.hidden = {512, 64, 32};
    c.model.activation = "gelu";
    c.model.norm = "batch";
    c.model.blocks = {{1, 16, 3, 1, 1}, {16, 32, 5, 2, 0}};
    c.model.patch = 4;
    c.model.dim = 96;
    c.model.heads = 6;
    c.model.depth = 3;
    c.model.mlp_ratio = 4;
    c.precision.mode = "fp16";
    c.precision.scaler.kind = "static";
    c.precision.scaler.init_scale = 1024.0;
    c.precision.scaler.growth_factor = 4.0;
    c.precision.scaler.backoff_factor = 0.25;
    c.precision.scaler.growth_interval = 100;
    c.precision.keep_fp32 = {"fc1", "conv2"};
    c.precision.emulate = "always";
    c.precision.fp8.format = "e4m3";
    c.precision.fp8.recipe = "current";
    c.precision.fp8.amax_history_len = 16;
    c.precision.fp8.amax_compute = "most_recent";
    c.precision.fp8.margin = 2;
    c.precision.mx.scale_rule = "rceil";
    c.precision.nvfp4.stochastic_gradients = true;
    c.optim.name = "sgd";
    c.optim.lr = 0.05;
    c.optim.momentum = 0.5;
    c.optim.weight_decay = 0.01;
    c.optim.beta1 = 0.8;
    c.optim.beta2 = 0.99;
    c.optim.eps = 1e-6;
    c.optim.clip_norm = 1.5;
    c.optim.clip_after_unscale = false;
    c.train.epochs = 7;
    c.train.max_steps = 300;
    c.train.batch_size = 64;
    c.train.eval_batch_size = 500;
    c.probes.every = 10;
    c.probes.shadow_every = 20;
    c.probes.format_sweep_every = 40;
    c.probes.sensitivity_every = 25;
    c.probes.sensitivity_formats = {"nvfp4", "fp8"};
    c.probes.ring_steps = 32;
    c.faults = {{120, "inf_grad", "fc2", 1.0}, {200, "scale_loss", "", 1e6}};
    return c;
}

QStringList keysOf(const json& object) {
    QStringList keys;
    for (const auto& item : object.items()) keys << qs(item.key());
    keys.sort();
    return keys;
}

QStringList sorted(QStringList list) {
    list.sort();
    return list;
}

std::string repeatedArray(const std::string& element, int count) {
    std::string text = "[";
    for (int i = 0; i < count; ++i) text += (i ? "," : "") + element;
    return text + "]";
}

}  // namespace

class TestConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // ---- JSON round trip and defaults ----

    void defaultsAreValid() { QVERIFY(validateConfig(RunConfig{}).empty()); }

    void emptyObjectGivesDefaults() {
        const RunConfig config = configFromJson(json::object());
        compareConfigs(config, RunConfig{});
    }

    void partialSectionKeepsOtherDefaults() {
        const RunConfig config = configFromJson(json::parse(R"({"optim": {"lr": 0.25}})"));
        QCOMPARE_BITS(config.optim.lr, 0.25);
        QCOMPARE(qs(config.optim.name), QString("adam"));
        QCOMPARE(config.train.batch_size, RunConfig{}.train.batch_size);
    }

    void nonDefaultRoundTrip() {
        const RunConfig original = nonDefaultConfig();
        QVERIFY(validateConfig(original).empty());
        compareConfigs(configFromJson(configToJson(original)), original);
        if (QTest::currentTestFailed()) return;
        // And through text, as config.json is.
        compareConfigs(configFromJson(json::parse(configToJson(original).dump())), original);
    }

    void toJsonWritesEveryField() {
        const json document = configToJson(nonDefaultConfig());
        QCOMPARE(keysOf(document),
                 sorted({"schema_version", "name", "seed", "device", "threads", "data", "model",
                         "precision", "optim", "train", "probes", "lockstep", "faults"}));
        QCOMPARE(keysOf(document["lockstep"]), sorted({"mode"}));
        QCOMPARE(keysOf(document["data"]),
                 sorted({"dataset", "path", "validation", "val_fraction", "subset", "normalize",
                         "synthetic_samples", "inputs", "targets", "val_inputs", "val_targets"}));
        QCOMPARE(keysOf(document["model"]),
                 sorted({"name", "hidden", "activation", "norm", "blocks", "patch", "dim",
                         "heads", "depth", "mlp_ratio", "path", "file_bytes", "sha256",
                         "probe_modules", "probe_depth"}));
        QCOMPARE(keysOf(document["precision"]),
                 sorted({"mode", "scaler", "keep_fp32", "emulate", "fp8", "mx", "nvfp4"}));
        QCOMPARE(keysOf(document["precision"]["fp8"]),
                 sorted({"format", "recipe", "amax_history_len", "amax_compute", "margin"}));
        QCOMPARE(keysOf(document["precision"]["mx"]), sorted({"scale_rule"}));
        QCOMPARE(keysOf(document["precision"]["nvfp4"]), sorted({"stochastic_gradients"}));
        QCOMPARE(keysOf(document["precision"]["scaler"]),
                 sorted({"kind", "init_scale", "growth_factor", "backoff_factor",
                         "growth_interval"}));
        QCOMPARE(keysOf(document["optim"]),
                 sorted({"name", "lr", "momentum", "weight_decay", "beta1", "beta2", "eps",
                         "clip_norm", "clip_after_unscale"}));
        QCOMPARE(keysOf(document["train"]),
                 sorted({"epochs", "max_steps", "batch_size", "eval_batch_size", "loss"}));
        QCOMPARE(keysOf(document["probes"]), sorted({"every", "shadow_every", "format_sweep_every", "sensitivity_every", "sensitivity_formats", "ring_steps", "locate_nonfinite", "pause_on_nonfinite", "pause_overflow_above",
                         "pause_scale_below", "precision_map_steps", "precision_map_reference"}));

        // Lists in their documented shapes.
        QCOMPARE(qs(document["model"]["blocks"].dump()),
                 qs(json::parse("[[1,16,3,1,1],[16,32,5,2,0]]").dump()));
        QCOMPARE(qs(document["faults"].dump()),
                 qs(json::parse(R"([{"step":120,"kind":"inf_grad","layer":"fc2","factor":1.0},
                                    {"step":200,"kind":"scale_loss","layer":"","factor":1e6}])")
                        .dump()));
        QVERIFY(document["train"]["batch_size"].is_number_integer());
        QVERIFY(document["seed"].is_number_unsigned());
        QCOMPARE(document["schema_version"].get<int>(), kConfigSchemaVersion);
    }

    void integralNumbersAcceptedAsIntegers() {
        const RunConfig config =
            configFromJson(json::parse(R"({"train": {"batch_size": 64.0, "max_steps": 1e3}})"));
        QCOMPARE(config.train.batch_size, int64_t{64});
        QCOMPARE(config.train.max_steps, int64_t{1000});
    }

    // ---- validation rules, one row each ----

    void rules_data() {
        QTest::addColumn<QString>("patch");  // merge patch over the defaults
        QTest::addColumn<QString>("field");
        QTest::addColumn<QStringList>("words");

        auto row = [](const char* name, const std::string& patch, const char* field,
                      const QStringList& words) {
            QTest::newRow(name) << qs(patch) << QString(field) << words;
        };
        const std::string fault = R"("step": 10, "kind": "inf_grad", "layer": "fc1")";
        auto faults = [&](const std::string& override) {
            return R"({"faults": [{)" + fault + "}, {" + override + "}]}";
        };

        row("schema_version 0", R"({"schema_version": 0})", "schema_version", {"must be 1"});
        row("device", R"({"device": "gpu"})", "device",
            {"must be one of auto, cpu, cuda", "(got \"gpu\")"});
        row("threads low", R"({"threads": -1})", "threads", {"[0, 1024]", "(got -1)"});
        row("threads high", R"({"threads": 1025})", "threads", {"[0, 1024]", "(got 1025)"});

        row("dataset", R"({"data": {"dataset": "cifar"}})", "data.dataset",
            {"must be one of fashion_mnist, mnist_idx, spirals, tiny_gradients, tensors",
             "\"cifar\""});
        row("mnist_idx needs path", R"({"data": {"dataset": "mnist_idx"}})", "data.path",
            {"mnist_idx"});
        const std::string tensors = R"("dataset": "tensors", "path": "d.safetensors", )";
        row("tensors needs path",
            R"({"data": {"dataset": "tensors", "inputs": "x", "targets": "y", "validation": "split"}})",
            "data.path", {"must name the .safetensors file when data.dataset is tensors"});
        row("tensors needs inputs",
            "{\"data\": {" + tensors + R"("targets": "y", "validation": "split"}})", "data.inputs",
            {"must name the tensor of training inputs", "(got \"\")"});
        row("tensors needs targets",
            "{\"data\": {" + tensors + R"("inputs": "x", "validation": "split"}})", "data.targets",
            {"must name the tensor of training targets"});
        row("tensors: validation test needs the val pair",
            "{\"data\": {" + tensors + R"("inputs": "x", "targets": "y"}})", "data.val_inputs",
            {"validation \"test\" needs the validation pair", "or use validation \"split\""});
        row("tensors: val_inputs without val_targets",
            "{\"data\": {" + tensors + R"("inputs": "x", "targets": "y", "val_inputs": "xv"}})",
            "data.val_targets", {"must name the validation targets"});
        row("tensors: val_targets without val_inputs",
            "{\"data\": {" + tensors + R"("inputs": "x", "targets": "y", "val_targets": "yv"}})",
            "data.val_inputs", {"must name the validation inputs"});
        row("tensors: split beside a val pair",
            "{\"data\": {" + tensors +
                R"("inputs": "x", "targets": "y", "val_inputs": "xv", "val_targets": "yv", "validation": "split"}})",
            "data.val_inputs", {"would ignore the validation pair", "(got \"xv\")"});
        row("inputs not a string", R"({"data": {"inputs": 3}})", "data.inputs",
            {"expected a string", "(got 3)"});
        row("validation", R"({"data": {"validation": "val"}})", "data.validation",
            {"must be one of test, split", "\"val\""});
        row("val_fraction 0", R"({"data": {"val_fraction": 0}})", "data.val_fraction",
            {"(0, 0.5]", "(got 0)"});
        row("val_fraction 0.6", R"({"data": {"val_fraction": 0.6}})", "data.val_fraction",
            {"(0, 0.5]", "(got 0.6)"});
        row("subset", R"({"data": {"subset": -1}})", "data.subset", {">= 0", "(got -1)"});
        row("synthetic low", R"({"data": {"synthetic_samples": 15}})", "data.synthetic_samples",
            {"[16, 10000000]", "(got 15)"});
        row("synthetic high", R"({"data": {"synthetic_samples": 10000001}})",
            "data.synthetic_samples", {"[16, 10000000]"});

        row("model name", R"({"model": {"name": "resnet"}})", "model.name",
            {"must be one of mlp, simple_cnn, deep_cnn, transformer, log_sum, batchnorm_mlp, "
             "mlp_manual_softmax, mlp_library_softmax"});
        row("hidden 0", R"({"model": {"hidden": [64, 0]}})", "model.hidden[1]",
            {"[1, 65536]", "(got 0)"});
        row("hidden high", R"({"model": {"hidden": [65537]}})", "model.hidden[0]",
            {"[1, 65536]"});
        row("hidden count", R"({"model": {"hidden": )" + repeatedArray("8", 65) + "}}",
            "model.hidden", {"at most 64", "(got 65)"});
        row("activation", R"({"model": {"activation": "swish"}})", "model.activation",
            {"must be one of relu, gelu, tanh"});
        row("norm", R"({"model": {"norm": "group"}})", "model.norm",
            {"must be one of auto, none, batch, layer"});
        row("block in", R"({"model": {"blocks": [[0, 8, 3, 1, 1]]}})", "model.blocks[0]",
            {"in must be in [1, 65536]", "(got 0)"});
        row("block out", R"({"model": {"blocks": [[1, 0, 3, 1, 1]]}})", "model.blocks[0]",
            {"out must be in [1, 65536]"});
        row("block out high", R"({"model": {"blocks": [[1, 65537, 3, 1, 1]]}})",
            "model.blocks[0]", {"out must be in [1, 65536]", "(got 65537)"});
        row("block kernel", R"({"model": {"blocks": [[1, 8, 0, 1, 1]]}})", "model.blocks[0]",
            {"kernel must be in [1, 65536]"});
        row("block stride", R"({"model": {"blocks": [[1, 8, 3, 0, 1]]}})", "model.blocks[0]",
            {"stride must be in [1, 65536]"});
        row("block pad", R"({"model": {"blocks": [[1, 8, 3, 1, -1]]}})", "model.blocks[0]",
            {"pad must be in [0, 65536]", "(got -1)"});
        row("first block in", R"({"model": {"blocks": [[3, 8, 3, 1, 1]]}})", "model.blocks[0]",
            {"in must be 1", "(got 3)"});
        row("blocks chain", R"({"model": {"blocks": [[1, 8, 3, 1, 1], [4, 8, 3, 1, 1]]}})",
            "model.blocks[1]", {"previous block's out (8)", "(got 4)"});
        row("patch", R"({"model": {"patch": 5}})", "model.patch",
            {"1, 2, 4, 7, 14, 28", "divisor of 28", "(got 5)"});
        row("dim", R"({"model": {"dim": 0}})", "model.dim", {">= 1", "(got 0)"});
        row("heads", R"({"model": {"heads": 0}})", "model.heads", {">= 1", "(got 0)"});
        row("heads divide dim", R"({"model": {"dim": 64, "heads": 5}})", "model.heads",
            {"must divide model.dim (64)", "(got 5)"});
        row("depth low", R"({"model": {"depth": 0}})", "model.depth", {"[1, 64]"});
        row("depth high", R"({"model": {"depth": 65}})", "model.depth", {"[1, 64]"});
        row("torchscript needs path", R"({"model": {"name": "torchscript"}})", "model.path",
            {"torchscript model needs the path"});
        row("sha256 not hex", R"({"model": {"sha256": "abc"}})", "model.sha256",
            {"64 lowercase hex digits", "\"abc\""});
        row("probe_modules empty name", R"({"model": {"probe_modules": ["fc1", ""]}})",
            "model.probe_modules[1]", {"module name"});
        row("probe_depth negative", R"({"model": {"probe_depth": -1}})", "model.probe_depth",
            {"[0, 64]"});
        row("probe_modules and probe_depth",
            R"({"model": {"probe_modules": ["fc1"], "probe_depth": 2}})", "model.probe_depth",
            {"not both"});
        row("loss unknown", R"({"train": {"loss": "hinge"}})", "train.loss",
            {"must be one of auto, cross_entropy, mse, model", "\"hinge\""});
        row("loss model on a zoo model", R"({"train": {"loss": "model"}})", "train.loss",
            {"torchscript model whose forward returns the loss", "\"simple_cnn\""});
        row("mlp_ratio low", R"({"model": {"mlp_ratio": 0}})", "model.mlp_ratio", {"[1, 16]"});
        row("mlp_ratio high", R"({"model": {"mlp_ratio": 17}})", "model.mlp_ratio", {"[1, 16]"});
        // 784*65536 + 63*65536^2 + 65536*10 = about 2.7e11 weights.
        row("mlp too large",
            R"({"model": {"name": "mlp", "hidden": )" + repeatedArray("65536", 64) + "}}",
            "model.hidden", {"about 2.71e+11 parameters", "GiB", "limit 2e9 parameters"});
        // 65536^2 * (4 + 2*16) * 64 = about 9.9e12.
        row("transformer too large",
            R"({"model": {"name": "transformer", "dim": 65536, "heads": 1, "depth": 64,
                          "mlp_ratio": 16}})",
            "model.dim", {"about 9.9e+12 parameters", "GiB", "limit 2e9"});
        // 65536 * 65536 * 3 * 3 = about 3.9e10.
        row("deep_cnn too large",
            R"({"model": {"name": "deep_cnn",
                          "blocks": [[1, 64, 3, 1, 1], [64, 65536, 3, 1, 1],
                                     [65536, 65536, 3, 1, 1]]}})",
            "model.blocks", {"parameters", "GiB", "limit 2e9"});

        row("mode", R"({"precision": {"mode": "fp6"}})", "precision.mode",
            {"must be one of fp32, tf32, fp16, bf16, fp16-pure, bf16-pure, fp8, mxfp8, mxfp4, "
             "nvfp4 (got \"fp6\")"});
        row("fp8 format", R"({"precision": {"fp8": {"format": "e5m2"}}})", "precision.fp8.format",
            {"must be one of hybrid, e4m3 (got \"e5m2\")"});
        row("fp8 recipe", R"({"precision": {"fp8": {"recipe": "mx"}}})", "precision.fp8.recipe",
            {"must be one of delayed, current (got \"mx\")"});
        row("amax_history_len 0", R"({"precision": {"fp8": {"amax_history_len": 0}}})",
            "precision.fp8.amax_history_len", {"must be in [1, 1048576] (got 0)"});
        row("amax_compute", R"({"precision": {"fp8": {"amax_compute": "mean"}}})",
            "precision.fp8.amax_compute", {"must be one of max, most_recent (got \"mean\")"});
        row("margin negative", R"({"precision": {"fp8": {"margin": -1}}})", "precision.fp8.margin",
            {"must be in [0, 64] (got -1)"});
        row("mx scale_rule", R"({"precision": {"mx": {"scale_rule": "ceil"}}})",
            "precision.mx.scale_rule", {"must be one of floor, rceil (got \"ceil\")"});
        row("emulate", R"({"precision": {"emulate": "never"}})", "precision.emulate",
            {"must be one of auto, always (got \"never\")"});
        row("scaler kind", R"({"precision": {"scaler": {"kind": "always"}}})",
            "precision.scaler.kind", {"must be one of auto, dynamic, static, off"});
        row("init_scale 0", R"({"precision": {"scaler": {"init_scale": 0}}})",
            "precision.scaler.init_scale", {"(0, 3.4e+38]", "(got 0)"});
        row("init_scale huge", R"({"precision": {"scaler": {"init_scale": 1e39}}})",
            "precision.scaler.init_scale", {"(0, 3.4e+38]", "(got 1e+39)"});
        row("growth_factor", R"({"precision": {"scaler": {"growth_factor": 1}}})",
            "precision.scaler.growth_factor", {"must be > 1 (got 1)"});
        row("backoff 0", R"({"precision": {"scaler": {"backoff_factor": 0}}})",
            "precision.scaler.backoff_factor", {"(0, 1)", "(got 0)"});
        row("backoff 1", R"({"precision": {"scaler": {"backoff_factor": 1}}})",
            "precision.scaler.backoff_factor", {"(0, 1)", "(got 1)"});
        row("growth_interval", R"({"precision": {"scaler": {"growth_interval": 0}}})",
            "precision.scaler.growth_interval", {">= 1", "(got 0)"});
        row("keep_fp32 empty", R"({"precision": {"keep_fp32": ["fc1", ""]}})",
            "precision.keep_fp32[1]", {"layer name"});

        row("optimizer", R"({"optim": {"name": "rmsprop"}})", "optim.name",
            {"must be one of sgd, adam, adamw"});
        row("lr 0", R"({"optim": {"lr": 0}})", "optim.lr", {"must be in (0, 10] (got 0)"});
        row("lr negative", R"({"optim": {"lr": -1}})", "optim.lr", {"(0, 10]", "(got -1)"});
        row("lr 100", R"({"optim": {"lr": 100}})", "optim.lr",
            {"must be in (0, 10] (got 100)"});
        row("momentum 1", R"({"optim": {"momentum": 1}})", "optim.momentum",
            {"[0, 1)", "(got 1)"});
        row("momentum negative", R"({"optim": {"momentum": -0.1}})", "optim.momentum",
            {"[0, 1)", "(got -0.1)"});
        row("weight_decay", R"({"optim": {"weight_decay": 1.5}})", "optim.weight_decay",
            {"[0, 1]", "(got 1.5)"});
        row("beta1", R"({"optim": {"beta1": 1}})", "optim.beta1", {"[0, 1)"});
        row("beta2", R"({"optim": {"beta2": -0.5}})", "optim.beta2", {"[0, 1)"});
        row("eps", R"({"optim": {"eps": 0}})", "optim.eps", {"must be > 0 (got 0)"});
        row("clip_norm", R"({"optim": {"clip_norm": -1}})", "optim.clip_norm",
            {">= 0", "(got -1)"});

        row("epochs low", R"({"train": {"epochs": 0}})", "train.epochs", {"[1, 100000]"});
        row("epochs high", R"({"train": {"epochs": 100001}})", "train.epochs", {"[1, 100000]"});
        row("max_steps", R"({"train": {"max_steps": -1}})", "train.max_steps", {">= 0"});
        row("batch_size low", R"({"train": {"batch_size": 0}})", "train.batch_size",
            {"[1, 65536]", "(got 0)"});
        row("batch_size high", R"({"train": {"batch_size": 65537}})", "train.batch_size",
            {"[1, 65536]"});
        row("eval_batch_size", R"({"train": {"eval_batch_size": 0}})", "train.eval_batch_size",
            {"[1, 65536]"});

        row("probes every", R"({"probes": {"every": -1}})", "probes.every", {">= 0"});
        row("lockstep mode", R"({"lockstep": {"mode": "fp6"}})", "lockstep.mode",
            {"must be one of fp32, tf32, fp16, bf16, fp16-pure, bf16-pure, fp8, mxfp8, mxfp4, nvfp4",
             "\"fp6\""});
        row("shadow_every", R"({"probes": {"shadow_every": -1}})", "probes.shadow_every",
            {">= 0"});
        row("format_sweep_every", R"({"probes": {"format_sweep_every": -5}})",
            "probes.format_sweep_every", {">= 0", "(got -5)"});
        row("sensitivity_every", R"({"probes": {"sensitivity_every": -1}})",
            "probes.sensitivity_every", {">= 0", "(got -1)"});
        row("sensitivity_formats unknown", R"({"probes": {"sensitivity_formats": ["fp8", "fp6"]}})",
            "probes.sensitivity_formats[1]", {"must be one of fp8, mxfp8, mxfp4, nvfp4, fp32", "(got \"fp6\")"});
        row("sensitivity_formats twice", R"({"probes": {"sensitivity_formats": ["mxfp4", "mxfp4"]}})",
            "probes.sensitivity_formats[1]", {"is listed twice", "(got \"mxfp4\")"});
        row("sensitivity_formats empty while on",
            R"({"probes": {"sensitivity_every": 10, "sensitivity_formats": []}})", "probes.sensitivity_formats",
            {"must name at least one format while probes.sensitivity_every is on"});
        row("sensitivity_formats not a list", R"({"probes": {"sensitivity_formats": "fp8"}})",
            "probes.sensitivity_formats", {"expected an array of strings", "(got \"fp8\")"});
        row("ring_steps low", R"({"probes": {"ring_steps": 0}})", "probes.ring_steps",
            {"[1, 4096]"});
        row("ring_steps high", R"({"probes": {"ring_steps": 4097}})", "probes.ring_steps",
            {"[1, 4096]"});

        row("fault step", faults(R"("step": -1, "kind": "nan_grad", "layer": "fc1")"),
            "faults[1].step", {">= 0", "(got -1)"});
        row("fault kind", faults(R"("step": 1, "kind": "oops", "layer": "fc1")"),
            "faults[1].kind",
            {"inf_grad, nan_grad, inf_activation, nan_activation, scale_loss, scale_activation, alloc_failure", "\"oops\""});
        row("fault layer", faults(R"("step": 1, "kind": "nan_activation")"), "faults[1].layer",
            {"must name a layer", "nan_activation"});
        row("fault factor", faults(R"("step": 1, "kind": "scale_loss", "factor": 0)"),
            "faults[1].factor", {"non-zero", "(got 0)"});
    }

    void rules() {
        QFETCH(QString, patch);
        QFETCH(QString, field);
        QFETCH(QStringList, words);
        const QString message = fromJsonError(patched(patch.toStdString()));
        QVERIFY2(message.startsWith(field + ": "), qPrintable("message: " + message));
        for (const QString& word : words)
            QVERIFY2(message.contains(word), qPrintable("no '" + word + "' in: " + message));
    }

    // Edge values that the rules must let through.
    void accepted_data() {
        QTest::addColumn<QString>("patch");
        QTest::newRow("mnist_idx with path")
            << R"({"data": {"dataset": "mnist_idx", "path": "/x"}})";
        QTest::newRow("val_fraction 0.5") << R"({"data": {"val_fraction": 0.5}})";
        QTest::newRow("tensors split")
            << R"({"data": {"dataset": "tensors", "path": "d.safetensors", "inputs": "x", "targets": "y", "validation": "split"}})";
        QTest::newRow("tensors with a val pair")
            << R"({"data": {"dataset": "tensors", "path": "d.safetensors", "inputs": "x", "targets": "y", "val_inputs": "xv", "val_targets": "yv"}})";
        // The tensor names belong to the tensors set only; other sets ignore them.
        QTest::newRow("names on another set") << R"({"data": {"dataset": "spirals", "inputs": "x"}})";
        QTest::newRow("lr 10") << R"({"optim": {"lr": 10}})";
        QTest::newRow("momentum 0") << R"({"optim": {"momentum": 0}})";
        QTest::newRow("weight_decay 1") << R"({"optim": {"weight_decay": 1}})";
        QTest::newRow("threads 1024") << R"({"threads": 1024})";
        QTest::newRow("hidden empty") << R"({"model": {"name": "mlp", "hidden": []}})";
        QTest::newRow("hidden 64 entries")
            << qs(R"({"model": {"name": "mlp", "hidden": )" + repeatedArray("8", 64) + "}}");
        QTest::newRow("blocks chain")
            << R"({"model": {"name": "deep_cnn", "blocks": [[1, 8, 3, 1, 1], [8, 16, 3, 2, 0]]}})";
        QTest::newRow("patch 28") << R"({"model": {"patch": 28, "dim": 8, "heads": 8}})";
        // The size guard applies to the model that runs, not to unused settings.
        QTest::newRow("large dim on an mlp")
            << R"({"model": {"name": "mlp", "dim": 1000000, "heads": 1}})";
        QTest::newRow("scale_loss without layer")
            << R"({"faults": [{"step": 0, "kind": "scale_loss", "factor": -2}]})";
        QTest::newRow("init_scale 3.4e38")
            << R"({"precision": {"scaler": {"init_scale": 3.4e38}}})";
        QTest::newRow("seed max") << R"({"seed": 18446744073709551615})";
    }

    void accepted() {
        QFETCH(QString, patch);
        const QString message = fromJsonError(patched(patch.toStdString()));
        QVERIFY2(message.isEmpty(), qPrintable(message));
    }

    void validateReturnsAllProblemsInFieldOrder() {
        RunConfig config;
        config.faults = {{-1, "inf_grad", "fc1", 1.0}};
        config.optim.lr = -1;
        config.data.dataset = "cifar";
        config.threads = -5;
        config.precision.scaler.growth_factor = 0.5;
        const auto problems = validateConfig(config);
        QStringList fields;
        for (const auto& problem : problems) fields << qs(problem.field);
        QCOMPARE(fields, QStringList({"threads", "data.dataset", "precision.scaler.growth_factor",
                                      "optim.lr", "faults[0].step"}));
        QCOMPARE(qs(problems[3].text()), QString("optim.lr: must be in (0, 10] (got -1)"));

        const QString thrown = inputErrorOf([&] { throwIfInvalid(config); });
        QCOMPARE(thrown, qs(problems.front().text()));
        QVERIFY(inputErrorOf([] { throwIfInvalid(RunConfig{}); }).isEmpty());
    }

    void nonFiniteNumbers() {
        RunConfig config;
        config.optim.lr = std::numeric_limits<double>::infinity();
        config.optim.eps = std::numeric_limits<double>::quiet_NaN();
        config.faults = {{0, "inf_grad", "fc1", -std::numeric_limits<double>::infinity()}};
        const auto problems = validateConfig(config);
        QCOMPARE(problems.size(), std::size_t{3});
        QCOMPARE(qs(problems[0].text()), QString("optim.lr: must be a finite number (got inf)"));
        QCOMPARE(qs(problems[1].text()), QString("optim.eps: must be a finite number (got nan)"));
        QCOMPARE(qs(problems[2].text()),
                 QString("faults[0].factor: must be a finite number (got -inf)"));

        // A document built in code can hold inf even though JSON text cannot.
        json document = json::object();
        document["optim"]["clip_norm"] = std::numeric_limits<double>::infinity();
        QCOMPARE(fromJsonError(document),
                 QString("optim.clip_norm: must be a finite number (got inf)"));
    }

    // ---- strict parsing ----

    void unknownKeys_data() {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QString>("expected");  // the message starts with this
        QTest::newRow("top level") << R"({"epochs": 3})"
                                   << "epochs: unknown key (allowed: schema_version, name, seed, "
                                      "device, threads, data, model, precision, optim, train, "
                                      "probes, lockstep, faults)";
        QTest::newRow("typo in section")
            << R"({"optim": {"lrr": 0.1}})"
            << "optim.lrr: unknown key (allowed: name, lr, momentum, weight_decay, beta1, "
               "beta2, eps, clip_norm, clip_after_unscale); did you mean 'lr'?";
        QTest::newRow("nested section") << R"({"precision": {"scaler": {"growth": 2}}})"
                                        << "precision.scaler.growth: unknown key (allowed: kind, "
                                           "init_scale, growth_factor, backoff_factor, "
                                           "growth_interval)";
        QTest::newRow("in a fault")
            << R"({"faults": [{"step": 1, "kind": "scale_loss", "factr": 2}]})"
            << "faults[0].factr: unknown key (allowed: step, kind, layer, factor); did you mean "
               "'factor'?";
        // The unknown key is reported even when a known key of the same object is bad.
        QTest::newRow("before bad values") << R"({"train": {"batch_size": 0, "bach": 1}})"
                                           << "train.bach: unknown key";
    }

    void unknownKeys() {
        QFETCH(QString, document);
        QFETCH(QString, expected);
        const QString message = fromJsonError(json::parse(document.toStdString()));
        QVERIFY2(message.startsWith(expected), qPrintable(message));
    }

    void wrongTypes_data() {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QString>("expected");  // the whole message
        QTest::newRow("string for integer")
            << R"({"train": {"batch_size": "abc"}})"
            << R"(train.batch_size: expected an integer (got "abc"))";
        QTest::newRow("fraction for integer") << R"({"train": {"batch_size": 2.5}})"
                                              << "train.batch_size: expected an integer (got 2.5)";
        QTest::newRow("null for integer") << R"({"train": {"epochs": null}})"
                                          << "train.epochs: expected an integer (got null)";
        QTest::newRow("string for number") << R"({"optim": {"lr": "0.1"}})"
                                           << R"(optim.lr: expected a number (got "0.1"))";
        QTest::newRow("number for string") << R"({"name": 5})"
                                           << "name: expected a string (got 5)";
        QTest::newRow("string for bool") << R"({"data": {"normalize": "yes"}})"
                                         << R"(data.normalize: expected true or false (got "yes"))";
        QTest::newRow("int for bool") << R"({"optim": {"clip_after_unscale": 1}})"
                                      << "optim.clip_after_unscale: expected true or false (got 1)";
        QTest::newRow("number for section") << R"({"optim": 5})"
                                            << "optim: expected an object (got 5)";
        QTest::newRow("number for list") << R"({"model": {"hidden": 5}})"
                                         << "model.hidden: expected an array of integers (got 5)";
        QTest::newRow("list element") << R"({"model": {"hidden": [64, "a"]}})"
                                      << R"(model.hidden[1]: expected an integer (got "a"))";
        QTest::newRow("short block") << R"({"model": {"blocks": [[1, 8, 3]]}})"
                                     << "model.blocks[0]: expected 5 integers [in, out, kernel, "
                                        "stride, pad] (got [1,8,3])";
        QTest::newRow("block element") << R"({"model": {"blocks": [[1, 8, 3, 1, 0.5]]}})"
                                       << "model.blocks[0][4]: expected an integer (got 0.5)";
        QTest::newRow("string for strings")
            << R"({"precision": {"keep_fp32": "fc1"}})"
            << R"(precision.keep_fp32: expected an array of strings (got "fc1"))";
        QTest::newRow("object for faults") << R"({"faults": {}})"
                                           << "faults: expected an array of fault objects (got {})";
        QTest::newRow("number for fault") << R"({"faults": [5]})"
                                          << "faults[0]: expected an object (got 5)";
        QTest::newRow("fault field") << R"({"faults": [{"step": "late"}]})"
                                     << R"(faults[0].step: expected an integer (got "late"))";
        QTest::newRow("negative seed")
            << R"({"seed": -1})"
            << "seed: expected an integer in [0, 18446744073709551615] (got -1)";
        QTest::newRow("threads beyond int")
            << R"({"threads": 1e10})"
            << "threads: expected an integer in [-2147483648, 2147483647] (got 10000000000.0)";
        QTest::newRow("top level array") << "[1, 2]"
                                         << "config: expected a JSON object (got [1,2])";
        QTest::newRow("long value cut")
            << R"({"name": ["aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc", "dddddddddd"]})"
            << "name: expected a string (got "
               "[\"aaaaaaaaaa\",\"bbbbbbbbbb\",\"cccccccccc\",\"dddd...)";
    }

    void wrongTypes() {
        QFETCH(QString, document);
        QFETCH(QString, expected);
        QCOMPARE(fromJsonError(json::parse(document.toStdString())), expected);
    }

    void schemaVersion() {
        QCOMPARE(configFromJson(json::parse(R"({"seed": 5})")).schema_version, 1);
        QCOMPARE(fromJsonError(json::parse(R"({"schema_version": 2})")),
                 QString("schema_version: 2 is newer than this AmpScope understands (1)"));
        // A newer file's new keys are not what the user needs to hear about.
        QCOMPARE(fromJsonError(json::parse(R"({"schema_version": 3, "new_section": {}})")),
                 QString("schema_version: 3 is newer than this AmpScope understands (1)"));
        QCOMPARE(fromJsonError(json::parse(R"({"schema_version": "1"})")),
                 QString(R"(schema_version: expected an integer (got "1"))"));
    }

    // ---- files ----

    void fileNotFound() {
        QTemporaryDir dir;
        const std::string path = QDir(dir.path()).filePath("missing.json").toStdString();
        QCOMPARE(inputErrorOf([&] { loadConfigFile(path); }),
                 qs(path + ": cannot open (No such file or directory)"));
        QCOMPARE(inputErrorOf([&] { loadConfigDocument(dir.path().toStdString()); }),
                 qs(dir.path().toStdString() + ": cannot open (Is a directory)"));
    }

    void syntaxErrors_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("position");
        QTest::newRow("error on line 3")
            << QByteArray("{\n  \"seed\": 1,\n  \"name\": }\n") << "line 3, column 11: ";
        QTest::newRow("missing comma")
            << QByteArray("{\n  \"seed\": 1\n  \"name\": \"x\"\n}\n") << "line 3, column 8: ";
        QTest::newRow("empty file") << QByteArray("") << "line 1, column 1: ";
        QTest::newRow("truncated") << QByteArray("{\n  \"seed\": 1,\n") << "line 3, column 1: ";
        QTest::newRow("columns count characters")
            << QByteArray("{\"name\": \"\xc3\xa9t\xc3\xa9\", x}") << "line 1, column 17: ";
        QTest::newRow("number overflow")
            << QByteArray("{\n \"optim\": {\"lr\": 1e400}\n}") << "line 2, column 18: ";
    }

    void syntaxErrors() {
        QFETCH(QByteArray, text);
        QFETCH(QString, position);
        QTemporaryDir dir;
        const QString path = QDir(dir.path()).filePath("bad.json");
        writeFile(path, text);
        const QString message = inputErrorOf([&] { loadConfigFile(path.toStdString()); });
        QVERIFY2(message.startsWith(path + ": not valid JSON (" + position),
                 qPrintable(message));
        QVERIFY2(message.endsWith(")"), qPrintable(message));
        QVERIFY2(!message.contains("json.exception"), qPrintable(message));
    }

    void loadNamesFileForConfigErrors() {
        QTemporaryDir dir;
        const QString path = QDir(dir.path()).filePath("config.json");
        writeFile(path, R"({"optim": {"lr": 100}})");
        QCOMPARE(inputErrorOf([&] { loadConfigFile(path.toStdString()); }),
                 path + ": optim.lr: must be in (0, 10] (got 100)");
        // The document alone is not validated.
        QCOMPARE_BITS(loadConfigDocument(path.toStdString())["optim"]["lr"].get<double>(), 100.0);
    }

    void saveThenLoad() {
        QTemporaryDir dir;
        const QString path = QDir(dir.path()).filePath("config.json");
        const RunConfig original = nonDefaultConfig();
        saveConfigFile(original, path.toStdString());
        compareConfigs(loadConfigFile(path.toStdString()), original);
        if (QTest::currentTestFailed()) return;

        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        // Pretty, two-space indent, RunConfig's order, trailing newline.
        QVERIFY(text.startsWith("{\n  \"schema_version\": 1,\n  \"name\": "));
        QVERIFY(text.contains("\n  \"data\": {\n    \"dataset\": \"mnist_idx\",\n"));
        QVERIFY(text.endsWith("}\n"));
        QVERIFY(!text.endsWith("\n\n"));
        // Nothing left behind next to it.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList({"config.json"}));

        // Saving again replaces the file.
        RunConfig changed = original;
        changed.train.epochs = 9;
        saveConfigFile(changed, path.toStdString());
        QCOMPARE(loadConfigFile(path.toStdString()).train.epochs, int64_t{9});
    }

    void saveToMissingDirectory() {
        QTemporaryDir dir;
        const std::string path = QDir(dir.path()).filePath("no/such/config.json").toStdString();
        const QString message = inputErrorOf([&] { saveConfigFile(RunConfig{}, path); });
        QVERIFY2(message.startsWith(qs(path + ": cannot write (")), qPrintable(message));
    }

    // ---- --set overrides ----

    void overrideTypedValues_data() {
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("path");      // JSON pointer into the document
        QTest::addColumn<QString>("expected");  // the value, as JSON text
        QTest::newRow("integer") << "train.batch_size=64" << "/train/batch_size" << "64";
        QTest::newRow("number") << "optim.lr=0.01" << "/optim/lr" << "0.01";
        QTest::newRow("bare word is a string") << "optim.name=sgd" << "/optim/name" << "\"sgd\"";
        QTest::newRow("bool") << "data.normalize=false" << "/data/normalize" << "false";
        QTest::newRow("array") << R"(precision.keep_fp32=["a"])" << "/precision/keep_fp32"
                               << R"(["a"])";
        QTest::newRow("string key keeps digits") << "name=2024" << "/name" << "\"2024\"";
        QTest::newRow("quoted string") << R"(name="x y")" << "/name" << "\"x y\"";
        QTest::newRow("empty string") << "data.path=" << "/data/path" << "\"\"";
        QTest::newRow("value with =") << "name=a=b" << "/name" << "\"a=b\"";
        QTest::newRow("array element of a default")
            << "model.hidden.1=64" << "/model/hidden" << "[256, 64]";
        QTest::newRow("nested") << "precision.scaler.init_scale=1024"
                                << "/precision/scaler/init_scale" << "1024";
    }

    void overrideTypedValues() {
        QFETCH(QString, assignment);
        QFETCH(QString, path);
        QFETCH(QString, expected);
        json document = json::object();
        applyOverride(document, assignment.toStdString());
        const json value = document.at(json::json_pointer(path.toStdString()));
        QCOMPARE(qs(value.dump()), qs(json::parse(expected.toStdString()).dump()));
        QCOMPARE(value.type_name(), json::parse(expected.toStdString()).type_name());
        QVERIFY2(fromJsonError(document).isEmpty(), qPrintable(fromJsonError(document)));
    }

    void overrideKeepsTheRestOfTheDocument() {
        json document = json::parse(R"({"optim": {"lr": 0.1}, "model": {"hidden": [32]}})");
        applyOverride(document, "optim.name=sgd");
        applyOverride(document, "train.epochs=5");
        QCOMPARE(qs(document.dump()),
                 qs(json::parse(R"({"optim": {"lr": 0.1, "name": "sgd"}, "model": {"hidden": [32]},
                                    "train": {"epochs": 5}})")
                        .dump()));
        const RunConfig config = configFromJson(document);
        QCOMPARE_BITS(config.optim.lr, 0.1);
        QCOMPARE(qs(config.optim.name), QString("sgd"));
        QCOMPARE(config.train.epochs, int64_t{5});
        // A list the document gives is the one indexed, not the default one.
        applyOverride(document, "model.hidden.0=48");
        QCOMPARE(qs(document["model"]["hidden"].dump()), QString("[48]"));
        QVERIFY(inputErrorOf([&] { applyOverride(document, "model.hidden.1=48"); })
                    .contains("no such key 'model.hidden.1'"));
    }

    void overrideFaults() {
        json document = json::parse(R"({"faults": [{"step": 5, "kind": "inf_grad",
                                                    "layer": "fc1"}]})");
        applyOverride(document, "faults.0.step=7");
        // factor is not in the file but is a key of every fault.
        applyOverride(document, "faults.0.factor=3");
        applyOverride(document, "faults.0.kind=nan_grad");
        const RunConfig config = configFromJson(document);
        QCOMPARE(config.faults.size(), std::size_t{1});
        QCOMPARE(config.faults[0].step, int64_t{7});
        QCOMPARE_BITS(config.faults[0].factor, 3.0);
        QCOMPARE(qs(config.faults[0].kind), QString("nan_grad"));

        // A whole list at once.
        json fresh = json::object();
        applyOverride(fresh, R"(faults=[{"step": 3, "kind": "scale_loss", "factor": 1e6}])");
        QCOMPARE_BITS(configFromJson(fresh).faults.at(0).factor, 1e6);
    }

    void overrideErrors_data() {
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("expected");  // the message starts with this
        QTest::newRow("missing key")
            << "optim.lrr=1" << "--set optim.lrr=1: no such key 'optim.lrr'";
        QTest::newRow("missing section") << "optimizer.lr=1"
                                         << "--set optimizer.lr=1: no such key 'optimizer.lr'";
        QTest::newRow("missing =") << "train.batch_size"
                                   << "--set train.batch_size: missing '='";
        QTest::newRow("empty key") << "=5" << "--set =5: missing the key";
        QTest::newRow("past a leaf") << "optim.lr.x=1" << "--set optim.lr.x=1: no such key";
        QTest::newRow("index past the end")
            << "faults.1.step=1" << "--set faults.1.step=1: no such key 'faults.1.step' (faults "
                                    "has 1 element,";
        QTest::newRow("index of no fault")
            << "faults.0.step=1" << "--set faults.0.step=1: no such key 'faults.0.step' (faults "
                                    "is empty)";
        QTest::newRow("index not a number") << "faults.first.step=1"
                                            << "--set faults.first.step=1: no such key";
        QTest::newRow("empty segment") << "optim..lr=1" << "--set optim..lr=1: no such key";
        QTest::newRow("number overflow") << "optim.lr=1e400"
                                         << "--set optim.lr=1e400: must be a finite number";
    }

    void overrideErrors() {
        QFETCH(QString, assignment);
        QFETCH(QString, expected);
        json document = json::object();
        if (QString(QTest::currentDataTag()) == "index past the end")
            document = json::parse(R"({"faults": [{"step": 1, "kind": "scale_loss"}]})");
        const QString message =
            inputErrorOf([&] { applyOverride(document, assignment.toStdString()); });
        QVERIFY2(message.startsWith(expected), qPrintable(message));
    }

    void overrideIsTypedStrictly() {
        json document = json::object();
        applyOverride(document, "train.batch_size=abc");
        QCOMPARE(fromJsonError(document),
                 QString(R"(train.batch_size: expected an integer (got "abc"))"));

        document = json::object();
        applyOverride(document, "train.batch_size=2.5");
        QCOMPARE(fromJsonError(document),
                 QString("train.batch_size: expected an integer (got 2.5)"));

        document = json::object();
        applyOverride(document, "precision.keep_fp32=fc1");
        QCOMPARE(fromJsonError(document),
                 QString(R"(precision.keep_fp32: expected an array of strings (got "fc1"))"));

        document = json::object();
        applyOverride(document, "optim.lr=100");
        QCOMPARE(fromJsonError(document), QString("optim.lr: must be in (0, 10] (got 100)"));
    }

    // The activation bound, hand-counted from the layer outputs of each model.
    void activationEstimatePerModel() {
        RunConfig c;
        c.data.dataset = "spirals";
        c.model.name = "mlp";
        c.model.hidden = {16, 16};
        // input 2, per hidden layer linear + activation (2 x 16 each), output 2
        QCOMPARE_BITS(activationElementsPerSample(c), 2.0 + 32.0 + 32.0 + 2.0);
        c.model.norm = "layer";  // adds a norm output per hidden layer
        QCOMPARE_BITS(activationElementsPerSample(c), 2.0 + 48.0 + 48.0 + 2.0);

        RunConfig cnn;  // fashion_mnist simple_cnn
        // image 784; conv1 64x28x28; pool1, relu1 64x14x14; conv2 128x14x14;
        // pool2, relu2 128x7x7; fc 10
        QCOMPARE_BITS(activationElementsPerSample(cnn),
                 784.0 + 50176.0 + 2 * 12544.0 + 25088.0 + 2 * 6272.0 + 10.0);
        cnn.train.batch_size = 100;
        QCOMPARE_BITS(activationBytesPerStep(cnn), 113690.0 * 100 * 4);
        cnn.data.subset = 50;  // the batch cannot exceed the training set
        QCOMPARE_BITS(activationBytesPerStep(cnn), 113690.0 * 50 * 4);

        RunConfig vit;
        vit.model.name = "transformer";  // patch 7: 16 tokens, dim 64, 4 heads, depth 2, ratio 2
        const double perBlock = 16 * 64 * (9 + 2 * 2) + 2 * 4 * 16 * 16;
        QCOMPARE_BITS(activationElementsPerSample(vit), 784.0 + 16 * 64 + 2 * perBlock + 64 + 10);

        RunConfig deep;
        deep.model.name = "deep_cnn";
        deep.model.blocks = {{1, 8, 3, 1, 1}, {8, 16, 2, 2, 0}};  // 28x28 then 14x14
        // batch norm by default: conv, norm and relu outputs per block
        QCOMPARE_BITS(activationElementsPerSample(deep),
                 784.0 + 3 * 8 * 784.0 + 3 * 16 * 196.0 + 1000 + 1000 + 10);
    }

    // Validation refuses a batch whose bound exceeds the memory it may use, naming
    // train.batch_size; a batch that fits passes. The memory is injected through
    // AMPSCOPE_MEMORY_BYTES, so that the same batch is refused and accepted on any machine.
    void batchBeyondMemoryIsRefused() {
        RunConfig c;
        c.data.dataset = "spirals";
        c.data.synthetic_samples = 10000000;
        c.model.name = "mlp";
        c.model.hidden = {65536};
        c.train.batch_size = 65536;
        const double bytes = activationBytesPerStep(c);
        QVERIFY(bytes == (2.0 + 2 * 65536 + 2) * 65536 * 4);  // 32 GiB and a little
        {
            test::ScopedEnvironment memory(kMemoryLimitVariable, "17179869184");  // 16 GiB
            const auto problems = validateConfig(c);
            QCOMPARE(problems.size(), size_t{1});
            QCOMPARE(QString::fromStdString(problems[0].field), QString("train.batch_size"));
            QCOMPARE(QString::fromStdString(problems[0].text()),
                     QString("train.batch_size: 65536 samples of this mlp would hold at least 32 GiB of "
                             "layer outputs in one step; AMPSCOPE_MEMORY_BYTES allows 16 GiB of memory"));
            c.train.batch_size = 64;
            QVERIFY(validateConfig(c).empty());
            c.train.batch_size = 65536;
        }
        {
            test::ScopedEnvironment memory(kMemoryLimitVariable, "68719476736");  // 64 GiB: it fits
            QVERIFY(validateConfig(c).empty());
        }
        // Unset, the limit is this machine's physical memory.
        const MemoryLimit machine = memoryLimit();
        QVERIFY(!machine.fromEnvironment);
        QVERIFY(machine.bytes == physicalMemoryBytes());
        QVERIFY(machine.bytes > 0.0);
    }

    void memoryVariableMustBeBytes_data() {
        QTest::addColumn<QString>("value");
        QTest::newRow("a word") << "lots";
        QTest::newRow("empty") << "";
        QTest::newRow("a unit") << "16G";
        QTest::newRow("zero") << "0";
        QTest::newRow("negative") << "-4096";
        QTest::newRow("past a double") << "1e400";
    }
    void memoryVariableMustBeBytes() {
        QFETCH(QString, value);
        test::ScopedEnvironment memory(kMemoryLimitVariable, value.toStdString());
        RunConfig c;
        c.data.dataset = "spirals";
        const auto problems = validateConfig(c);
        QCOMPARE(problems.size(), size_t{1});
        QCOMPARE(QString::fromStdString(problems[0].text()),
                 "AMPSCOPE_MEMORY_BYTES: must be a positive number of bytes (got \"" + value + "\")");
    }
};

QTEST_APPLESS_MAIN(TestConfig)
#include "test_config.moc"
