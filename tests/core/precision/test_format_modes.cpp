// The low-precision format modes (fp8, mxfp8, mxfp4, nvfp4) as the engine trains
// them: the operands a layer multiplies are exactly the TensorQuantizers functions of
// its fp32 operands (forward) and of the gradient at its output (backward); delayed
// scaling's history advances once per step per rounding point and is the trainer's
// own; zoo models train in every mode; the description and the scaler they get.
#include <QtTest/QtTest>

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "ExactCompare.h"
#include "DataLoadSupport.h"
#include "config/RunConfig.h"
#include "data/Dataset.h"
#include "engine/ProbeSession.h"
#include "engine/Trainer.h"
#include "probes/FormatQuantRecord.h"
#include "models/BasicLayers.h"
#include "precision/ComputePolicy.h"
#include "precision/formats/TensorQuantizers.h"

using namespace ampscope;

namespace {

PrecisionConfig precisionFor(const QString& mode, const QString& recipe = "delayed") {
    PrecisionConfig precision;
    precision.mode = mode.toStdString();
    precision.fp8.recipe = recipe.toStdString();
    return precision;
}

// What a mode does to the three operands, by hand: `which` 0 = input, 1 = weight,
// 2 = the gradient at the output. Delayed scaling keeps one history per operand, as
// the engine keeps one per rounding point.
class HandQuantizer {
public:
    HandQuantizer(QString mode, QString recipe) : mode_(std::move(mode)), recipe_(std::move(recipe)) {
        for (int i = 0; i < 3; ++i)
            delayed_[i].emplace(i == 2 ? NumberFormat::E5M2 : NumberFormat::E4M3);
    }
    torch::Tensor operator()(const torch::Tensor& x, int which) {
        const bool gradient = which == 2;
        if (mode_ == "fp8") {
            const NumberFormat f = gradient ? NumberFormat::E5M2 : NumberFormat::E4M3;
            if (recipe_ == "current") return quantizeCurrentScaling(x, f).values;
            return quantizeDelayedScaling(x, *delayed_[which], f).values;
        }
        if (mode_ == "mxfp8")
            return quantizeMx(x, gradient ? NumberFormat::E5M2 : NumberFormat::E4M3, MxScaleRule::Floor).values;
        if (mode_ == "mxfp4") return quantizeMx(x, NumberFormat::E2M1, MxScaleRule::Floor).values;
        return quantizeNvfp4(x).values;
    }
    const DelayedScaling& delayed(int which) const { return *delayed_[which]; }

private:
    QString mode_, recipe_;
    std::optional<DelayedScaling> delayed_[3];
};

DataBundle imageData(int64_t samples, uint64_t seed) { return test::randomImageData(samples, seed, 32); }

DataBundle spirals() {
    DataConfig config;
    config.dataset = "spirals";
    config.synthetic_samples = 1024;
    return loadData(config, 3);
}

RunConfig mlpConfig(const QString& mode) {
    RunConfig config;
    config.model.name = "mlp";
    config.model.hidden = {64, 64};
    config.precision = precisionFor(mode);
    config.optim.lr = 1e-2;
    return config;
}

double mean(const std::vector<double>& v, size_t from, size_t to) {
    double sum = 0.0;
    for (size_t i = from; i < to; ++i) sum += v[i];
    return sum / double(to - from);
}

}  // namespace

class FormatModesTest : public QObject {
    Q_OBJECT

    void modeRows() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("recipe");  // fp8's
        QTest::newRow("fp8 delayed") << "fp8" << "delayed";
        QTest::newRow("fp8 current") << "fp8" << "current";
        QTest::newRow("mxfp8") << "mxfp8" << "";
        QTest::newRow("mxfp4") << "mxfp4" << "";
        QTest::newRow("nvfp4") << "nvfp4" << "";
    }

private Q_SLOTS:
    void initTestCase() { at::set_num_threads(1); }

    // The slots of each mode, and what the run says about itself.
    void slotsAndDescription() {
        const auto fp8 = makeComputePolicy(precisionFor("fp8"), torch::kCPU);
        QVERIFY(fp8.quantizesFormats());
        QCOMPARE(fp8.emulation.operandForward.format.recipe, FormatRecipe::DelayedScaling);
        QCOMPARE(fp8.emulation.operandForward.format.element, NumberFormat::E4M3);
        QCOMPARE(fp8.emulation.resultBackward.format.element, NumberFormat::E5M2);
        QVERIFY(fp8.emulation.operandBackward.none());
        QVERIFY(fp8.emulation.resultForward.none());
        QVERIFY(fp8.execution.emulated);
        QVERIFY2(QString::fromStdString(fp8.execution.how)
                     .startsWith("emulated fp8 (e4m3 forward, e5m2 gradients, delayed scaling) on CPU"),
                 fp8.execution.how.c_str());

        auto e4m3 = precisionFor("fp8", "current");
        e4m3.fp8.format = "e4m3";
        const auto allE4m3 = makeComputePolicy(e4m3, torch::kCPU);
        QCOMPARE(allE4m3.emulation.resultBackward.format.element, NumberFormat::E4M3);
        QCOMPARE(allE4m3.emulation.resultBackward.format.recipe, FormatRecipe::CurrentScaling);

        auto nv = precisionFor("nvfp4");
        nv.nvfp4.stochastic_gradients = true;
        const auto nvfp4 = makeComputePolicy(nv, torch::kCPU);
        QVERIFY(!nvfp4.emulation.operandForward.format.stochastic);
        QVERIFY(nvfp4.emulation.resultBackward.format.stochastic);

        for (const char* mode : {"fp8", "mxfp8", "mxfp4", "nvfp4"}) {
            QCOMPARE(QString::fromStdString(resolvedScalerKind(mode, "auto")), QString("off"));
            QCOMPARE(QString::fromStdString(resolvedScalerKind(mode, "dynamic")), QString("dynamic"));
            QVERIFY(!makeComputePolicy(precisionFor(mode), torch::kCPU).realAutocast);
        }
        // The plain modes hold no format.
        QVERIFY(!makeComputePolicy(precisionFor("fp16"), torch::kCPU).quantizesFormats());
    }

    // A Linear layer multiplies the hand-quantized operands, and its weight and input
    // gradients come from the hand-quantized output gradient; over two steps, so that
    // delayed scaling's second scale (from the first step's amaxes) is checked too.
    void linearMultipliesQuantizedOperands_data() { modeRows(); }
    void linearMultipliesQuantizedOperands() {
        QFETCH(QString, mode);
        QFETCH(QString, recipe);
        ComputePolicy policy = makeComputePolicy(precisionFor(mode, recipe), torch::kCPU);
        policy.registerLayers({"fc"});
        torch::manual_seed(5);
        LinearLayer layer(64, 16);
        HandQuantizer hand(mode, recipe);
        for (int step = 0; step < 2; ++step) {
            // Values spread over several binades, and larger on the second step.
            const auto x0 = torch::randn({8, 64}) * (step + 1) * 3.0;
            const auto g = torch::randn({8, 16}) * 1e-3 * (step + 1);
            const auto weight = layer.parameters()[0];
            const auto bias = layer.parameters()[1];
            for (auto& p : layer.parameters()) p.mutable_grad() = torch::Tensor();
            const auto x = x0.clone().requires_grad_(true);
            const auto y = layer.forward(x, policy.forLayer("fc"));
            y.backward(g);

            const auto qx = hand(x0, 0);
            const auto qw = hand(weight.detach(), 1);
            const auto qg = hand(g, 2);
            const auto expected = torch::linear(qx, qw, bias.detach());
            QVERIFY2(torch::equal(y.detach(), expected), qPrintable(QString("step %1 forward").arg(step)));
            // The operands really changed (the comparison is not fp32 against fp32).
            QVERIFY(!torch::equal(qx, x0));
            QVERIFY(torch::allclose(weight.grad(), qg.t().mm(qx), 1e-5, 1e-9));
            QVERIFY(torch::allclose(x.grad(), qg.mm(qw), 1e-5, 1e-9));
            QVERIFY(!torch::allclose(weight.grad(), g.t().mm(qx), 1e-5, 1e-9));
            // The bias is added in fp32, its gradient is the quantized dY summed.
            QVERIFY(torch::allclose(bias.grad(), qg.sum(0), 1e-5, 1e-9));
        }
        if (mode == "fp8" && recipe == "delayed") {
            const auto* points = policy.formatPoints("fc");
            QVERIFY(points);
            const auto& input = *(*points)[0].forward.delayed;
            QCOMPARE(input.historySize(), 2);
            QCOMPARE_BITS(input.scale(), hand.delayed(0).scale());
            QCOMPARE_BITS((*points)[2].backward.delayed->scale(), hand.delayed(2).scale());
            QVERIFY((*points)[2].backward.delayed->scale() != 1.0f);  // gradients ~1e-3: scaled up
        }
    }

    // A conv's blocks run along its reduction dimension (OCP MX: "along the dot
    // product's reduction dimension"): the input's channels, the weight's C x k x k
    // flattened, and the output gradient's channels. Checked against the quantizers on
    // tensors moved by hand, and against the last-dimension blocking it replaced.
    void convBlocksRunAlongTheReduction_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("mxfp8") << "mxfp8";
        QTest::newRow("mxfp4") << "mxfp4";
        QTest::newRow("nvfp4") << "nvfp4";
    }
    void convBlocksRunAlongTheReduction() {
        QFETCH(QString, mode);
        ComputePolicy policy = makeComputePolicy(precisionFor(mode), torch::kCPU);
        policy.registerLayers({"conv"});
        torch::manual_seed(6);
        ConvLayer layer(48, 40, 3, 1, 1, "none", false);
        // Channels of very different sizes, so that blocks across channels differ from
        // blocks across the width.
        auto channelScales = [](int64_t channels, int low, int high) {
            return torch::exp2(torch::randint(low, high, {1, channels, 1, 1}).to(torch::kFloat));
        };
        const auto x0 = torch::randn({2, 48, 5, 7}) * channelScales(48, -6, 6);
        const auto g = torch::randn({2, 40, 5, 7}) * channelScales(40, -12, -4);
        const auto weight = layer.parameters()[0];
        const auto bias = layer.parameters()[1];
        const auto x = x0.clone().requires_grad_(true);
        const auto y = layer.forward(x, policy.forLayer("conv"));
        y.backward(g);

        const bool nvfp4 = mode == "nvfp4";
        const NumberFormat element = mode == "mxfp8" ? NumberFormat::E4M3 : NumberFormat::E2M1;
        const NumberFormat gradientElement = mode == "mxfp8" ? NumberFormat::E5M2 : NumberFormat::E2M1;
        auto blocksLast = [&](const torch::Tensor& t, NumberFormat f) {
            return nvfp4 ? quantizeNvfp4(t).values : quantizeMx(t, f, MxScaleRule::Floor).values;
        };
        auto alongChannels = [&](const torch::Tensor& t, NumberFormat f) {
            // Contiguous, as the layer hands it on: a channels-last tensor would make
            // conv2d sum in another order.
            return blocksLast(t.movedim(1, -1), f).movedim(-1, 1).contiguous();
        };
        const auto qx = alongChannels(x0, element);
        const auto qw = blocksLast(weight.detach().flatten(1), element).view_as(weight);
        const auto qg = alongChannels(g, gradientElement);
        const auto expected = torch::conv2d(qx, qw, bias.detach(), 1, 1);
        QVERIFY(torch::equal(y.detach(), expected));
        // Not what blocks along the width give.
        QVERIFY(!torch::equal(qx, blocksLast(x0, element)));
        QVERIFY(!torch::equal(qw, blocksLast(weight.detach(), element)));
        // The gradients come from the channel-blocked dY.
        const auto qxLeaf = qx.clone().requires_grad_(true), qwLeaf = qw.clone().requires_grad_(true);
        const auto grads =
            torch::autograd::grad({torch::conv2d(qxLeaf, qwLeaf, bias.detach(), 1, 1)}, {qxLeaf, qwLeaf}, {qg});
        QVERIFY(torch::allclose(x.grad(), grads[0], 1e-5, 1e-12));
        QVERIFY(torch::allclose(weight.grad(), grads[1], 1e-5, 1e-12));
    }

    // Delayed scaling in a trainer: one amax per step per point (forward operands and
    // the output gradient), the second step's scale from the first step's amax, no
    // advance in evaluation, and a second trainer with histories of its own.
    void delayedHistoryAdvancesOncePerStep() {
        const DataBundle data = spirals();
        torch::manual_seed(2);
        Trainer trainer(mlpConfig("fp8"), data, torch::kCPU);
        Trainer twin(mlpConfig("fp8"), data, torch::kCPU);
        const std::string layer = trainer.model().layerName(0);
        QCOMPARE(QString::fromStdString(layer), QString("fc1"));
        const auto weightBefore = trainer.model().layerParameters(0)[0].detach().clone();
        const auto x = data.train.inputs.slice(0, 0, 64);
        const auto y = data.train.targets.slice(0, 0, 64);

        trainer.step(x, y);
        const auto* points = trainer.policy().formatPoints(layer);
        QVERIFY(points);
        const DelayedScaling& weight = *(*points)[1].forward.delayed;
        const DelayedScaling& input = *(*points)[0].forward.delayed;
        const DelayedScaling& gradient = *(*points)[2].backward.delayed;
        QCOMPARE(weight.historySize(), 1);
        QCOMPARE(input.historySize(), 1);
        QCOMPARE(gradient.historySize(), 1);
        QVERIFY(!(*points)[0].backward.delayed);  // no rounding there in fp8
        QVERIFY(!(*points)[2].forward.delayed);
        // The scale the second step uses comes from the first step's weight.
        const float amax = weightBefore.abs().max().item<float>();
        QCOMPARE_BITS(weight.scaleAmax(), amax);
        QCOMPARE_BITS(weight.scale(), perTensorScale(amax, NumberFormat::E4M3));
        QCOMPARE_BITS(input.scaleAmax(), x.abs().max().item<float>());

        trainer.step(x, y);
        QCOMPARE(weight.historySize(), 2);
        QCOMPARE(gradient.historySize(), 2);
        trainer.evaluate(data.val, 256);
        QCOMPARE(weight.historySize(), 2);
        QCOMPARE(input.historySize(), 2);
        // The twin trained nothing: its points hold no history.
        const auto* twinPoints = twin.policy().formatPoints(layer);
        QVERIFY(twinPoints);
        QVERIFY(!(*twinPoints)[1].forward.delayed);
    }

    // Zoo models train in every format mode: finite losses that go down.
    void zooModelsTrain_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("recipe");
        QTest::addColumn<QString>("model");
        for (const char* model : {"mlp", "simple_cnn"}) {
            const QString m = model;
            QTest::newRow(qPrintable(m + " fp8 delayed")) << "fp8" << "delayed" << m;
            QTest::newRow(qPrintable(m + " fp8 current")) << "fp8" << "current" << m;
            QTest::newRow(qPrintable(m + " mxfp8")) << "mxfp8" << "" << m;
            QTest::newRow(qPrintable(m + " mxfp4")) << "mxfp4" << "" << m;
            QTest::newRow(qPrintable(m + " nvfp4")) << "nvfp4" << "" << m;
        }
    }
    void zooModelsTrain() {
        QFETCH(QString, mode);
        QFETCH(QString, recipe);
        QFETCH(QString, model);
        const bool mlp = model == "mlp";
        const DataBundle data = mlp ? spirals() : imageData(32, 4);
        RunConfig config = mlpConfig(mode);
        config.precision.fp8.recipe = recipe.toStdString();
        if (!mlp) {
            config.model.name = "simple_cnn";
            config.optim.lr = 1e-3;
        }
        torch::manual_seed(1);
        Trainer trainer(config, data, torch::kCPU);
        const int steps = mlp ? 60 : 25;
        const int64_t batch = mlp ? 128 : 32;
        std::vector<double> losses;
        for (int step = 0; step < steps; ++step) {
            const int64_t start = mlp ? (step * batch) % data.train.size() : 0;
            const auto m = trainer.step(data.train.inputs.slice(0, start, start + batch),
                                        data.train.targets.slice(0, start, start + batch));
            QVERIFY2(std::isfinite(m.loss), qPrintable(QString("step %1: %2").arg(step + 1).arg(m.loss)));
            losses.push_back(m.loss);
        }
        const double first = mean(losses, 0, 5), last = mean(losses, losses.size() - 5, losses.size());
        qInfo("%s %s: loss %.4f -> %.4f", qPrintable(model), qPrintable(mode), first, last);
        QVERIFY2(last < 0.8 * first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
    }

    // A probe step measures every quantization point with the quantizers' own
    // statistics; the numbers are those of the TensorQuantizers function by hand, and
    // no fp16 counts are made (the values were never rounded to fp16).
    void probeStepMeasuresEachPoint() {
        const DataBundle data = spirals();
        RunConfig config = mlpConfig("fp8");
        config.probes.every = 2;
        torch::manual_seed(2);
        Trainer trainer(config, data, torch::kCPU);
        ProbeSession probes(trainer, config.probes, nullptr);
        const auto weight = trainer.model().layerParameters(0)[0].detach().clone();
        const auto x = data.train.inputs.slice(0, 0, 64);
        const auto y = data.train.targets.slice(0, 0, 64);

        probes.beginStep(1);
        trainer.step(x, y);
        const auto snapshot = probes.endStep();
        QVERIFY(snapshot);
        // Three points per linear layer: input and weight forward, output gradient backward.
        const auto layers = trainer.model().layerNames();
        int64_t linear = 0;
        for (const auto& name : layers) linear += name.rfind("fc", 0) == 0 || name == "out";
        QCOMPARE(int64_t(snapshot->formatPoints.size()), 3 * linear);
        const FormatQuantMeasurement* fc1Weight = nullptr;
        for (const auto& point : snapshot->formatPoints) {
            QCOMPARE(point.tensors, int64_t{1});
            QCOMPARE(QString::fromStdString(point.recipe), QString("delayed"));
            if (point.direction == "backward") {
                QCOMPARE(QString::fromStdString(point.operand), QString("output"));
                QCOMPARE(QString::fromStdString(point.format), QString("e5m2"));
            } else {
                QVERIFY(point.operand == "input" || point.operand == "weight");
                QCOMPARE(QString::fromStdString(point.format), QString("e4m3"));
            }
            if (point.layer == "fc1" && point.operand == "weight") fc1Weight = &point;
        }
        QVERIFY(fc1Weight);
        // The first step's scale is 1: the weight as e4m3 holds it unscaled.
        const auto hand = quantizeWithScale(weight, NumberFormat::E4M3, 1.0f).stats;
        QCOMPARE(fc1Weight->elements, hand.elements);
        QCOMPARE(fc1Weight->underflowed, hand.underflowed);
        QCOMPARE(fc1Weight->saturated, hand.saturated);
        QCOMPARE_BITS(fc1Weight->snrDb(), hand.snrDb());
        QCOMPARE_BITS(fc1Weight->scale, 1.0);
        QVERIFY(fc1Weight->snrDb() > 10.0 && fc1Weight->snrDb() < 60.0);
        for (const auto& layer : snapshot->layers) {
            QVERIFY(!layer.activationClasses);
            QVERIFY(!layer.activationGradClasses);
        }

        // The record: written and read back the same, with the derived numbers.
        const FormatQuantRecord record{1, *fc1Weight};
        const auto json = toJson(record);
        QCOMPARE(QString::fromStdString(json.at("type").get<std::string>()), QString("format_quant"));
        QCOMPARE_BITS(json.at("snr_db").get<double>(), fc1Weight->snrDb());
        QCOMPARE_BITS(json.at("underflow_fraction").get<double>(), fc1Weight->underflowFraction());
        const auto back = formatQuantRecordFromJson(json);
        QCOMPARE(back.step, int64_t{1});
        QCOMPARE(QString::fromStdString(back.point.layer), QString("fc1"));
        QCOMPARE(back.point.underflowed, fc1Weight->underflowed);
        QCOMPARE_BITS(back.point.squaredError, fc1Weight->squaredError);
        QCOMPARE_BITS(back.point.scale, 1.0);

        // Not a probe step: nothing measured.
        probes.beginStep(3);
        trainer.step(x, y);
        QVERIFY(!probes.endStep());
    }

    // nvfp4's stochastic gradients draw from the run's seed: the same seed rounds the
    // same way, another seed differently.
    void stochasticGradientsAreSeeded() {
        const DataBundle data = spirals();
        auto lossesFor = [&](uint64_t seed) {
            RunConfig config = mlpConfig("nvfp4");
            config.precision.nvfp4.stochastic_gradients = true;
            config.seed = seed;
            torch::manual_seed(9);
            Trainer trainer(config, data, torch::kCPU);
            std::vector<double> losses;
            for (int step = 0; step < 5; ++step)
                losses.push_back(trainer.step(data.train.inputs.slice(0, step * 64, step * 64 + 64),
                                              data.train.targets.slice(0, step * 64, step * 64 + 64))
                                     .loss);
            return losses;
        };
        const auto a = lossesFor(1), b = lossesFor(1), c = lossesFor(2);
        QVERIFY(a == b);
        QVERIFY(a != c);
    }
};

QTEST_GUILESS_MAIN(FormatModesTest)
#include "test_format_modes.moc"
