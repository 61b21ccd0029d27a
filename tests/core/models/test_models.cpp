// The model zoo: layer lists, each model learns a small fixed batch, real bf16
// autocast runs its matmuls in bf16, and fp16 emulation holds fp16 values
// exactly where fp16 autocast would.
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "common/InputError.h"
#include "data/Dataset.h"
#include "models/BasicLayers.h"
#include "engine/Trainer.h"
#include "models/ModelFactory.h"
#include "precision/Autocast.h"

using namespace ampscope;

namespace {

// Images whose class is a fixed function of their pixels, so a model can learn them.
DataBundle learnableImages(int64_t n, uint64_t seed) {
    torch::manual_seed(seed);
    DataBundle data;
    data.task = "classification";
    data.num_classes = 10;
    data.input_shape = {1, 28, 28};
    auto x = torch::randn({n, 1, 28, 28});
    auto projection = torch::randn({28 * 28, 10});
    auto y = x.flatten(1).matmul(projection).argmax(1);
    data.train = {x, y};
    data.val = {x, y};
    data.description = "learnable random images";
    data.synthetic = true;
    return data;
}

double trainSteps(RunConfig config, const DataBundle& data, int steps, double* firstLoss) {
    Trainer trainer(config, data, c10::Device(c10::kCPU));
    double loss = 0;
    for (int i = 0; i < steps; ++i) {
        loss = trainer.step(data.train.inputs, data.train.targets).loss;
        if (i == 0) *firstLoss = loss;
    }
    return loss;
}

}  // namespace

class ModelsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(2); }

    void simpleCnnHasTwoConvBlocksAndOneLinear() {
        ModelConfig config;
        config.name = "simple_cnn";
        auto model = buildModel(config, {1, 28, 28}, 10);
        QCOMPARE(model->layerNames(), (std::vector<std::string>{"conv1", "pool1", "relu1", "conv2", "pool2",
                                                                 "relu2", "flatten", "fc"}));
        // conv 1->64 (640) + conv 64->128 (73856) + linear 6272->10 (62730)
        QCOMPARE(model->parameterCount(), int64_t(640 + 73856 + 62730));
        auto out = model->forward(torch::zeros({2, 1, 28, 28}), ComputePolicy{});
        QCOMPARE(out.sizes(), (c10::IntArrayRef{2, 10}));
    }

    void deepCnnUsesItsFourteenConvBlocks() {
        ModelConfig config;
        config.name = "deep_cnn";
        auto model = buildModel(config, {1, 28, 28}, 10);
        QCOMPARE(model->layerCount(), size_t(14 + 4));
        QCOMPARE(model->layerName(13), std::string("block14"));
        auto out = model->forward(torch::zeros({2, 1, 28, 28}), ComputePolicy{});
        QCOMPARE(out.sizes(), (c10::IntArrayRef{2, 10}));
    }

    void cnnOnPointsIsAnInputError() {
        ModelConfig config;
        config.name = "simple_cnn";
        try {
            buildModel(config, {2}, 3);
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(QString(e.what()).startsWith("model.name:"));
        }
    }

    void eachModelLearns_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        for (const char* m : {"mlp", "simple_cnn", "deep_cnn", "transformer"})
            for (const char* mode : {"fp32", "bf16"})
                QTest::newRow((std::string(m) + "/" + mode).c_str()) << QString(m) << QString(mode);
    }
    void eachModelLearns() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        RunConfig config;
        config.model.name = model.toStdString();
        config.precision.mode = mode.toStdString();
        config.optim.lr = 1e-3;
        if (model == "deep_cnn")  // a short stack keeps the test fast; same code path
            config.model.blocks = {{1, 16, 3, 1, 1}, {16, 32, 2, 2, 0}, {32, 32, 3, 1, 1}};
        const auto data = learnableImages(64, 3);
        double first = 0;
        const double last = trainSteps(config, data, 25, &first);
        QVERIFY2(last < 0.7 * first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
    }

    void bf16AutocastRunsMatmulsInBf16() {
        auto a = torch::randn({4, 8}), b = torch::randn({8, 3});
        {
            AutocastScope scope(c10::kCPU, c10::ScalarType::BFloat16, true);
            QCOMPARE(torch::mm(a, b).scalar_type(), c10::ScalarType::BFloat16);
            LinearLayer linear(8, 3);
            QCOMPARE(linear.forward(a, LayerCompute{}).scalar_type(), c10::ScalarType::BFloat16);
            {
                AutocastScope fp32Region(c10::kCPU, c10::ScalarType::BFloat16, false);
                QCOMPARE(torch::mm(a, b).scalar_type(), c10::ScalarType::Float);
            }
            QVERIFY(autocastEnabled(c10::kCPU));
        }
        QVERIFY(!autocastEnabled(c10::kCPU));
        QCOMPARE(torch::mm(a, b).scalar_type(), c10::ScalarType::Float);
    }

    void fp16EmulationHoldsHalfValues() {
        PrecisionConfig precision;
        precision.mode = "fp16";
        const auto policy = makeComputePolicy(precision, c10::Device(c10::kCPU));
        QVERIFY(policy.execution.emulated);
        LinearLayer linear(16, 4);
        auto x = torch::randn({8, 16}) * 1e-3;
        auto y = linear.forward(x, policy.forLayer("fc"));
        QVERIFY(torch::equal(y, y.to(torch::kHalf).to(torch::kFloat)));
        (y * 1e-6).sum().backward();
        for (const auto& p : linear.parameters())
            QVERIFY(torch::equal(p.grad(), p.grad().to(torch::kHalf).to(torch::kFloat)));
        // A layer kept in fp32 is not rounded.
        PrecisionConfig kept = precision;
        kept.keep_fp32 = {"fc"};
        const auto keptPolicy = makeComputePolicy(kept, c10::Device(c10::kCPU));
        QVERIFY(keptPolicy.forLayer("fc").identity());
        QVERIFY(!keptPolicy.forLayer("conv1").identity());
    }
};

QTEST_APPLESS_MAIN(ModelsTest)
#include "test_models.moc"
