// A user's TorchScript model in the engine: which submodules become layers, what the
// observer and the roundings see, the fidelity of a TorchScript export of the zoo's
// simple_cnn against the zoo model itself (fp32, fp16 emulation, bf16, fp8, mxfp4), a model that
// computes its own loss, and the files a user might pass by mistake.
#include <QtTest/QtTest>

#include <cmath>
#include <map>
#include <tuple>

#include <torch/torch.h>

#include "ExactCompare.h"
#include "DataLoadSupport.h"
#include "common/InputError.h"
#include "config/RunConfig.h"
#include "data/Dataset.h"
#include "engine/Trainer.h"
#include "models/TorchScriptModel.h"
#include "precision/Fp16Limits.h"
#include "probes/FirstNonFiniteOp.h"
#include "probes/NonFiniteText.h"

using namespace ampscope;

namespace {

QString fixtures() { return qEnvironmentVariable("AMPSCOPE_SCRIPT_FIXTURES"); }

std::string fixture(const char* name) { return (fixtures() + "/" + name).toStdString(); }

DataBundle imageData(int64_t samples, uint64_t seed) { return test::randomImageData(samples, seed, 64); }

RunConfig scriptConfig(const char* file, const std::string& mode = "fp32") {
    RunConfig config;
    config.model.name = "torchscript";
    config.model.path = fixture(file);
    config.precision.mode = mode;
    config.optim.name = "adam";
    config.optim.lr = 1e-3;
    return config;
}

// The zoo's layer names, so both models' layers (and rounding tags) line up.
const std::vector<std::string> kSimpleCnnLayers = {"conv1", "pool1", "relu1", "conv2",
                                                   "pool2", "relu2", "flatten", "fc"};

class NameRecorder : public LayerObserver {
public:
    std::vector<std::string> names;
    std::vector<c10::ScalarType> dtypes;
    void afterLayer(size_t index, const std::string& name, torch::Tensor& output) override {
        names.push_back(name);
        dtypes.push_back(output.scalar_type());
    }
};

// Counts, per (layer, operand, direction), the values fp16 rounding flushes to zero.
class FlushCounter : public RoundingObserver {
public:
    std::map<std::tuple<std::string, int, bool>, int64_t> flushed;
    void beforeRounding(const RoundingTag& tag, bool backward, const torch::Tensor& values,
                        Rounding rounding) override {
        if (rounding != Rounding::Half) return;
        const auto v = values.detach().to(torch::kFloat).abs();
        const int64_t count = (v.gt(0) & v.le(fp16::kFlushBound)).sum().item<int64_t>();
        flushed[{tag.layer, static_cast<int>(tag.operand), backward}] += count;
    }
};


}  // namespace

class ScriptModelTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        if (!QFile::exists(fixtures() + "/simple_cnn.pt"))
            QSKIP("no TorchScript fixtures (the script_model_fixtures test writes them with python3-torch)");
        at::set_num_threads(1);
    }

    // Default layers: the modules holding parameters of their own, in named_modules()
    // order; the model's own parameter makes "(model)" a layer.
    void defaultLayersAreParameterHolders() {
        const auto model = TorchScriptModel::load(scriptConfig("residual_mlp.pt").model, torch::kCPU, false);
        const std::vector<std::string> expected = {
            "(model)", "embed", "blocks.0.norm", "blocks.0.fc1", "blocks.0.fc2",
            "blocks.1.norm", "blocks.1.fc1", "blocks.1.fc2", "head"};
        QCOMPARE(model->layerNames(), expected);
        // 784*32+32 (embed) + 2 x (64 norm + 32*64+64 fc1 + 64*32+32 fc2) + 32 (gain) + 32*10+10 (head).
        QCOMPARE(model->parameterCount(), int64_t{25120 + 2 * (64 + 2112 + 2080) + 32 + 330});
        QCOMPARE(model->layerParameters(0).size(), size_t{1});  // gain
        QCOMPARE(model->layerParameters(0)[0].numel(), int64_t{32});
        int64_t inLayers = 0;
        for (size_t i = 0; i < model->layerCount(); ++i)
            for (const auto& p : model->layerParameters(i)) inLayers += p.numel();
        QCOMPARE(inLayers, model->parameterCount());
        // The module tree for the window.
        const auto& modules = model->modules();
        QCOMPARE(modules.front().name, std::string());
        bool sawBlock = false;
        for (const auto& m : modules)
            if (m.name == "blocks.1") {
                sawBlock = true;
                QCOMPARE(m.type, std::string("Block"));
                QVERIFY(!m.probed);
                QCOMPARE(m.depth, 2);
            }
        QVERIFY(sawBlock);
    }

    void probeModulesAndDepth() {
        auto config = scriptConfig("residual_mlp.pt");
        config.model.probe_modules = {"blocks.1"};
        auto model = TorchScriptModel::load(config.model, torch::kCPU, false);
        // blocks.1 holds its three leaves; the rest still needs layers of its own.
        QCOMPARE(model->layerNames(), (std::vector<std::string>{"(model)", "embed", "blocks.0.norm",
                                                                "blocks.0.fc1", "blocks.0.fc2",
                                                                "blocks.1", "head"}));
        QCOMPARE(model->layerParameters(5).size(), size_t{6});  // norm, fc1, fc2: weight + bias each

        config.model.probe_modules.clear();
        config.model.probe_depth = 1;
        model = TorchScriptModel::load(config.model, torch::kCPU, false);
        QCOMPARE(model->layerNames(), (std::vector<std::string>{"(model)", "embed", "blocks", "head"}));
        QCOMPARE(model->layersWithin("blocks"), (std::vector<std::string>{"blocks"}));

        config.model.probe_depth = 0;
        config.model.probe_modules = {"blocks.7"};
        try {
            TorchScriptModel::load(config.model, torch::kCPU, false);
            QFAIL("an unknown module was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("model.probe_modules: no module named \"blocks.7\""), e.what());
            QVERIFY2(QString(e.what()).contains("blocks.0.fc1"), e.what());
        }
    }

    // The observer sees each layer's output once per forward, named by its path, even
    // where two blocks share one TorchScript type (one instrumented graph).
    void observerSeesQualifiedNames() {
        auto model = TorchScriptModel::load(scriptConfig("residual_mlp.pt").model, torch::kCPU, false);
        ComputePolicy policy = makeComputePolicy(PrecisionConfig{}, torch::kCPU);
        NameRecorder recorder;
        const auto out = model->forward(torch::randn({4, 1, 28, 28}), policy, &recorder);
        QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{4, 10}));
        // Call order; "(model)" last: the model's own output.
        const std::vector<std::string> expected = {
            "embed", "blocks.0.norm", "blocks.0.fc1", "blocks.0.fc2", "blocks.1.norm",
            "blocks.1.fc1", "blocks.1.fc2", "head", "(model)"};
        QCOMPARE(recorder.names, expected);
    }

    // keep_fp32 may name a module: bf16 autocast stops inside it, and the layers in it
    // count as kept.
    void keepFp32NamesAModule() {
        auto config = scriptConfig("residual_mlp.pt", "bf16");
        config.precision.keep_fp32 = {"blocks.1"};
        const DataBundle data = imageData(16, 3);
        Trainer trainer(config, data, torch::kCPU);
        QVERIFY(trainer.policy().keeps("blocks.1.fc2"));
        QVERIFY(!trainer.policy().keeps("blocks.0.fc2"));
        NameRecorder recorder;
        trainer.setObserver(&recorder);
        trainer.step(data.train.inputs.slice(0, 0, 8), data.train.targets.slice(0, 0, 8));
        std::map<std::string, c10::ScalarType> dtype;
        for (size_t i = 0; i < recorder.names.size(); ++i) dtype[recorder.names[i]] = recorder.dtypes[i];
        QCOMPARE(dtype["blocks.0.fc2"], c10::ScalarType::BFloat16);
        QCOMPARE(dtype["blocks.1.fc1"], c10::ScalarType::Float);
        QCOMPARE(dtype["blocks.1.fc2"], c10::ScalarType::Float);
        QCOMPARE(dtype["head"], c10::ScalarType::BFloat16);

        config.precision.keep_fp32 = {"blocks.9"};
        try {
            Trainer refused(config, data, torch::kCPU);
            QFAIL("keep_fp32 of an unknown module was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("precision.keep_fp32: no layer named \"blocks.9\""), e.what());
        }
    }

    // The export of the zoo's simple_cnn, trained from the zoo model's weights on the
    // same batches, gives the zoo model's losses.
    void fidelity_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<double>("bound");  // relative, per step
        QTest::newRow("fp32") << "fp32" << 1e-6;
        QTest::newRow("fp16 emulated") << "fp16" << 1e-6;
        QTest::newRow("tf32 emulated") << "tf32" << 1e-6;
        QTest::newRow("fp16-pure emulated") << "fp16-pure" << 1e-6;
        // Real CPU bf16 autocast on both: the traced conv is aten::_convolution, which
        // 1.13's CPU autocast does not list; the graph pass casts its operands as autocast
        // casts the zoo's aten::conv2d, so both land in the same kernels.
        QTest::newRow("bf16") << "bf16" << 1e-6;
        QTest::newRow("bf16-pure") << "bf16-pure" << 1e-6;
        // The format modes: the same quantization points, the same delayed-scaling
        // histories (one per layer x operand x direction), so the same losses.
        QTest::newRow("fp8 emulated") << "fp8" << 1e-6;
        QTest::newRow("mxfp4 emulated") << "mxfp4" << 1e-6;
    }
    void fidelity() {
        QFETCH(QString, mode);
        QFETCH(double, bound);
        const DataBundle data = imageData(50 * 16, 7);
        RunConfig zooConfig;
        zooConfig.model.name = "simple_cnn";
        zooConfig.precision.mode = mode.toStdString();
        zooConfig.optim.name = "adam";
        zooConfig.optim.lr = 1e-3;
        RunConfig scriptConfigured = scriptConfig("simple_cnn.pt", mode.toStdString());
        scriptConfigured.model.probe_modules = kSimpleCnnLayers;
        if (mode == "fp16-pure") zooConfig.precision.scaler.kind = scriptConfigured.precision.scaler.kind = "off";
        torch::manual_seed(11);
        Trainer zoo(zooConfig, data, torch::kCPU);
        Trainer script(scriptConfigured, data, torch::kCPU);
        QCOMPARE(script.model().layerNames(), kSimpleCnnLayers);
        QCOMPARE(script.parameters().size(), zoo.parameters().size());
        script.copyStateFrom(zoo);

        FlushCounter zooFlushes, scriptFlushes;
        double worst = 0.0;
        for (int64_t step = 0; step < 50; ++step) {
            const auto x = data.train.inputs.slice(0, step * 16, (step + 1) * 16);
            const auto y = data.train.targets.slice(0, step * 16, (step + 1) * 16);
            const bool probe = step % 10 == 0;
            zoo.policy().setRoundingObserver(probe ? &zooFlushes : nullptr);
            script.policy().setRoundingObserver(probe ? &scriptFlushes : nullptr);
            const auto a = zoo.step(x, y);
            const auto b = script.step(x, y);
            QVERIFY(std::isfinite(a.loss));
            const double relative = std::abs(a.loss - b.loss) / std::abs(a.loss);
            worst = std::max(worst, relative);
            QVERIFY2(relative <= bound, qPrintable(QString("step %1: zoo %2, TorchScript %3")
                                                       .arg(step + 1).arg(a.loss, 0, 'g', 12)
                                                       .arg(b.loss, 0, 'g', 12)));
        }
        qInfo("%s: worst relative loss difference over 50 steps %.3g", qPrintable(mode), worst);
        // The roundings are at the same places: the same per-layer flush counts.
        QCOMPARE(scriptFlushes.flushed.size(), zooFlushes.flushed.size());
        QVERIFY(scriptFlushes.flushed == zooFlushes.flushed);
        if (mode == "fp16") {
            int64_t total = 0;
            for (const auto& [key, count] : zooFlushes.flushed) total += count;
            QVERIFY2(total > 0, "fp16 emulation flushed nothing: the comparison would be empty");
        }
    }

    // train.loss "model": the forward takes (inputs, targets) and returns the loss.
    void modelComputesItsOwnLoss() {
        auto config = scriptConfig("own_loss.pt");
        config.train.loss = "model";
        const DataBundle data = imageData(64, 5);
        Trainer trainer(config, data, torch::kCPU);
        QCOMPARE(trainer.model().layerNames(), (std::vector<std::string>{"net.1", "net.3"}));
        const auto x = data.train.inputs.slice(0, 0, 32), y = data.train.targets.slice(0, 0, 32);
        const double first = trainer.step(x, y).loss;
        QVERIFY(std::isfinite(first));
        // Ten classes at initialisation: the cross entropy is near ln 10.
        QVERIFY2(std::abs(first - std::log(10.0)) < 0.5, qPrintable(QString::number(first)));
        double last = first;
        for (int i = 0; i < 30; ++i) last = trainer.step(x, y).loss;
        QVERIFY2(last < first * 0.5, qPrintable(QString("%1 -> %2").arg(first).arg(last)));
        const auto evaluation = trainer.evaluate(data.val, 32);
        QVERIFY(std::isfinite(evaluation.loss));
        QVERIFY(std::isnan(evaluation.accuracy));

        config.train.loss = "auto";
        try {
            Trainer refused(config, data, torch::kCPU);
            QFAIL("a two-input forward was accepted for a plain loss");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("forward takes 2 inputs"), e.what());
        }
    }

    // The first op whose output is not finite, by name, module and phase.
    void firstNonFiniteOpInForward() {
        auto model = TorchScriptModel::load(scriptConfig("log_head.pt").model, torch::kCPU, false);
        const ComputePolicy policy = makeComputePolicy(PrecisionConfig{}, torch::kCPU);
        torch::manual_seed(2);
        torch::NoGradGuard noGrad;
        FirstNonFiniteOp watch;
        const auto out = model->forward(torch::full({2, 4}, -100.0), policy, nullptr);
        QVERIFY(!torch::isfinite(out).all().item<bool>());
        NonFiniteEvent event;  // what the layer checks found: NaN, in the forward
        event.layer = std::string(kLossLayerName);
        event.phase = "forward";
        event.nan = 1;
        const auto first = watch.explaining(event);
        QVERIFY(first.has_value());
        QCOMPARE(first->op, std::string("aten::log"));
        QCOMPARE(first->module, std::string("act"));
        QCOMPARE(first->phase, std::string("forward"));
    }

    void firstNonFiniteOpInBackward() {
        auto model = TorchScriptModel::load(scriptConfig("sqrt_head.pt").model, torch::kCPU, false);
        const ComputePolicy policy = makeComputePolicy(PrecisionConfig{}, torch::kCPU);
        // Zero weights and bias: fc gives exactly 0, sqrt(0) = 0 is finite, and its
        // gradient 1 / (2 sqrt(0)) is +Inf: the first non-finite value is in backward.
        {
            torch::NoGradGuard noGrad;
            for (auto& p : model->parameters()) p.zero_();
        }
        FirstNonFiniteOp watch;
        const auto out = model->forward(torch::ones({2, 4}), policy, nullptr);
        out.sum().backward();
        NonFiniteEvent found;
        found.layer = "fc";
        found.phase = "backward";
        found.posInf = 1;
        const auto first = watch.explaining(found);
        QVERIFY(first.has_value());
        QCOMPARE(first->phase, std::string("backward"));
        QVERIFY(first->inf);
        // An event with NaNs in the forward has no op to explain it here.
        found.phase = "forward";
        found.nan = 1;
        QVERIFY(!watch.explaining(found).has_value());
        QVERIFY2(first->node.find("SqrtBackward") != std::string::npos, first->node.c_str());
        QVERIFY(first->module.empty());

        NonFiniteEvent event;
        event.step = 4;
        event.layer = "fc";
        event.phase = "backward";
        event.tensor = "gradient";
        event.posInf = 3;
        event.numel = 6;
        event.op = first->op;
        event.opPhase = first->phase;
        event.opNode = first->node;
        event.locatedBy = "replay";
        const QString text = QString::fromStdString(describeFirstNonFinite(event));
        QVERIFY2(text.startsWith("step 4: 3 +Inf of 6 in the gradient of fc (backward); first op " +
                                 QString::fromStdString(first->op) + " in " +
                                 QString::fromStdString(first->node) + " (backward)"),
                 qPrintable(text));
        QVERIFY2(text.endsWith("; found by replaying the step"), qPrintable(text));
    }

    void badFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("words");
        QTest::newRow("missing") << "nothing_here.pt" << "no such file";
        QTest::newRow("text file") << "not_a_model.pt" << "not a TorchScript archive (not a zip file)";
        QTest::newRow("torch.save of a module") << "pickled_module.pt"
                                                << "a torch.save() archive of a module or its weights, not TorchScript; export it with torch.jit.trace";
        QTest::newRow("legacy pickle") << "legacy_pickle.pt" << "a Python pickle (torch.save), not TorchScript";
        QTest::newRow("no forward") << "no_forward.pt" << "the TorchScript module has no forward method";
        QTest::newRow("code wants CUDA") << "wants_cuda.pt" << "its code puts tensors on cuda";
        QTest::newRow("5 outputs for 10 classes") << "five_classes.pt"
                                                  << "forward gives [3, 5] for inputs [3, 1, 28, 28]; cross_entropy needs [3, classes] with 10 classes or more";
    }
    void badFiles() {
        QFETCH(QString, file);
        QFETCH(QString, words);
        const DataBundle data = imageData(8, 1);
        try {
            Trainer trainer(scriptConfig(file.toUtf8().constData()), data, torch::kCPU);
            QFAIL("the file was accepted");
        } catch (const InputError& e) {
            const QString message = e.what();
            QVERIFY2(message.startsWith("model.path: " + fixtures() + "/" + file + ": "), e.what());
            QVERIFY2(message.contains(words), e.what());
            QVERIFY2(!message.contains('\n'), e.what());
        }
    }

    void lossNeedsMatchingTargets() {
        DataBundle data = imageData(8, 1);
        auto config = scriptConfig("simple_cnn.pt");
        config.train.loss = "mse";
        try {
            Trainer trainer(config, data, torch::kCPU);
            QFAIL("mse on class targets was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("train.loss: mse needs float targets of the output's shape; data.dataset fashion_mnist has class targets"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(ScriptModelTest)
#include "test_script_model.moc"
