// The multi-tensor optimizer against LibTorch's own torch::optim (SGD, Adam,
// AdamW): the same parameters, the same gradients, step after step, must give
// the same weights bit for bit on the CPU. And Adam's first step against the
// formula worked by hand.
#include <QtTest/QtTest>

#include <cmath>
#include <functional>
#include <memory>

#include "ExactCompare.h"
#include "engine/MultiTensorOptimizer.h"

using namespace ampscope;

namespace {

// Parameters of several shapes (a conv kernel, a matrix, a bias, a scalar), drawn once.
std::vector<torch::Tensor> someParameters(torch::ScalarType dtype, uint64_t seed) {
    torch::manual_seed(seed);
    std::vector<torch::Tensor> params;
    for (const auto& shape : std::vector<std::vector<int64_t>>{{8, 3, 3, 3}, {10, 7}, {7}, {}})
        params.push_back(torch::randn(shape).to(dtype).requires_grad_(true));
    return params;
}

std::vector<torch::Tensor> copies(const std::vector<torch::Tensor>& params) {
    std::vector<torch::Tensor> out;
    for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_(true));
    return out;
}

std::unique_ptr<torch::optim::Optimizer> libtorchOptimizer(const OptimConfig& o,
                                                           const std::vector<torch::Tensor>& params) {
    if (o.name == "sgd")
        return std::make_unique<torch::optim::SGD>(
            params, torch::optim::SGDOptions(o.lr).momentum(o.momentum).weight_decay(o.weight_decay));
    if (o.name == "adamw")
        return std::make_unique<torch::optim::AdamW>(
            params,
            torch::optim::AdamWOptions(o.lr).betas({o.beta1, o.beta2}).eps(o.eps).weight_decay(o.weight_decay));
    return std::make_unique<torch::optim::Adam>(
        params, torch::optim::AdamOptions(o.lr).betas({o.beta1, o.beta2}).eps(o.eps).weight_decay(o.weight_decay));
}

// Runs `steps` updates on both sides with the same random gradients; `skip(step, i)`
// leaves parameter i without a gradient at that step. Returns the first difference.
QString compareWithLibTorch(const OptimConfig& o, torch::ScalarType dtype, int steps,
                            const std::function<bool(int, size_t)>& skip = {}) {
    auto ours = someParameters(dtype, 7);
    auto theirs = copies(ours);
    MultiTensorOptimizer multi(o, ours);
    auto reference = libtorchOptimizer(o, theirs);
    torch::manual_seed(11);
    for (int s = 1; s <= steps; ++s) {
        for (size_t i = 0; i < ours.size(); ++i) {
            ours[i].mutable_grad().reset();
            theirs[i].mutable_grad().reset();
            const auto g = (torch::randn(ours[i].sizes()) * std::pow(10.0, (s % 5) - 3)).to(dtype);
            if (skip && skip(s, i)) continue;
            ours[i].mutable_grad() = g.clone();
            theirs[i].mutable_grad() = g.clone();
        }
        multi.step();
        reference->step();
        for (size_t i = 0; i < ours.size(); ++i)
            if (!torch::equal(ours[i], theirs[i]))
                return QString("step %1, parameter %2: largest difference %3")
                    .arg(s)
                    .arg(i)
                    .arg((ours[i].to(torch::kDouble) - theirs[i].to(torch::kDouble)).abs().max().item<double>());
    }
    return {};
}

OptimConfig optimizer(const char* name, double weightDecay, double momentum = 0.9) {
    OptimConfig o;
    o.name = name;
    o.lr = 0.01;
    o.weight_decay = weightDecay;
    o.momentum = momentum;
    o.beta1 = 0.8;
    o.beta2 = 0.99;
    o.eps = 1e-6;
    return o;
}

}  // namespace

class TestMultiTensorOptimizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void equalsLibTorchBitForBit_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("weightDecay");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<int>("dtype");
        const int f32 = int(torch::kFloat), bf16 = int(torch::kBFloat16), f64 = int(torch::kDouble);
        QTest::newRow("adam") << "adam" << 0.0 << 0.0 << f32;
        QTest::newRow("adam, L2 weight decay") << "adam" << 0.05 << 0.0 << f32;
        QTest::newRow("adamw") << "adamw" << 0.05 << 0.0 << f32;
        QTest::newRow("adamw, no decay") << "adamw" << 0.0 << 0.0 << f32;
        QTest::newRow("sgd") << "sgd" << 0.0 << 0.0 << f32;
        QTest::newRow("sgd, momentum") << "sgd" << 0.0 << 0.9 << f32;
        QTest::newRow("sgd, momentum and decay") << "sgd" << 1e-3 << 0.9 << f32;
        QTest::newRow("adam, bf16 weights (pure bf16)") << "adam" << 0.0 << 0.0 << bf16;
        QTest::newRow("sgd, bf16 weights") << "sgd" << 0.0 << 0.9 << bf16;
        QTest::newRow("adamw, fp64") << "adamw" << 0.01 << 0.0 << f64;
    }
    void equalsLibTorchBitForBit() {
        QFETCH(QString, name);
        QFETCH(double, weightDecay);
        QFETCH(double, momentum);
        QFETCH(int, dtype);
        const auto o = optimizer(name.toUtf8().constData(), weightDecay, momentum);
        const QString difference = compareWithLibTorch(o, torch::ScalarType(dtype), 12);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

    void parametersWithoutGradientsKeepTheirOwnStepCount() {
        // Parameter 1 misses every third step and parameter 3 the first two: their
        // bias corrections then use their own t, as torch::optim's per-parameter state does.
        for (const char* name : {"adam", "adamw", "sgd"}) {
            const auto skip = [](int step, size_t i) { return (i == 1 && step % 3 == 0) || (i == 3 && step <= 2); };
            const QString difference = compareWithLibTorch(optimizer(name, 0.01), torch::kFloat, 9, skip);
            QVERIFY2(difference.isEmpty(), qPrintable(QString(name) + ": " + difference));
        }
        auto params = someParameters(torch::kFloat, 3);
        MultiTensorOptimizer multi(optimizer("adam", 0.0), params);
        for (int s = 1; s <= 4; ++s) {
            for (size_t i = 0; i < params.size(); ++i)
                params[i].mutable_grad() = (i == 2 && s % 2 == 0) ? torch::Tensor() : torch::ones_like(params[i]);
            multi.step();
        }
        QCOMPARE(multi.stepCount(0), int64_t(4));
        QCOMPARE(multi.stepCount(2), int64_t(2));
    }

    void adamFirstStepByHand() {
        // t = 1: m = (1-b1) g, v = (1-b2) g^2, so m/(1-b1) = g and sqrt(v/(1-b2)) = |g|:
        // the update is lr * g / (|g| + eps), about lr * sign(g), whatever g's size.
        auto p = torch::tensor({1.0f, -2.0f, 0.5f}).requires_grad_(true);
        p.mutable_grad() = torch::tensor({1e-3f, -40.0f, 0.0f});
        OptimConfig o = optimizer("adam", 0.0);
        MultiTensorOptimizer multi(o, {p});
        multi.step();
        const double lr = o.lr, eps = o.eps;
        const double expected0 = 1.0 - lr * 1e-3 / (1e-3 + eps);
        const double expected1 = -2.0 + lr * 40.0 / (40.0 + eps);
        QVERIFY(std::abs(p[0].item<double>() - expected0) < 1e-6);
        QVERIFY(std::abs(p[1].item<double>() - expected1) < 1e-6);
        QCOMPARE_BITS(p[2].item<float>(), 0.5f);  // a zero gradient moves nothing
    }

    void cudaMultiTensorKernelsMatchLibTorch() {
        // On a GPU the _foreach_ calls are fused multi-tensor kernels, not LibTorch's
        // per-tensor ones: the weights must agree to float32 rounding after 12 steps.
        if (!torch::cuda::is_available()) QSKIP("no CUDA device");
        for (const char* name : {"adam", "adamw", "sgd"}) {
            const OptimConfig o = optimizer(name, 0.01);
            std::vector<torch::Tensor> ours, theirs;
            for (const auto& p : someParameters(torch::kFloat, 5)) {
                ours.push_back(p.detach().to(torch::kCUDA).requires_grad_(true));
                theirs.push_back(p.detach().to(torch::kCUDA).requires_grad_(true));
            }
            MultiTensorOptimizer multi(o, ours);
            auto reference = libtorchOptimizer(o, theirs);
            torch::manual_seed(2);
            for (int s = 1; s <= 12; ++s) {
                for (size_t i = 0; i < ours.size(); ++i) {
                    const auto g = torch::randn(ours[i].sizes()).to(torch::kCUDA);
                    ours[i].mutable_grad() = g.clone();
                    theirs[i].mutable_grad() = g.clone();
                }
                multi.step();
                reference->step();
            }
            for (size_t i = 0; i < ours.size(); ++i)
                QVERIFY2(torch::allclose(ours[i], theirs[i], 1e-5, 1e-7),
                         qPrintable(QString("%1, parameter %2: largest difference %3")
                                        .arg(name)
                                        .arg(i)
                                        .arg((ours[i] - theirs[i]).abs().max().item<double>())));
        }
    }

    void mixedDtypesAreUpdatedInTheirOwnGroups() {
        // A kept-fp32 layer next to bf16 weights (pure bf16): both updated, each as
        // torch::optim would update it alone.
        auto a = torch::ones({3}).requires_grad_(true);
        auto b = torch::ones({3}, torch::kBFloat16).requires_grad_(true);
        a.mutable_grad() = torch::full({3}, 0.5f);
        b.mutable_grad() = torch::full({3}, 0.5f, torch::kBFloat16);
        auto a2 = a.detach().clone().requires_grad_(true);
        auto b2 = b.detach().clone().requires_grad_(true);
        a2.mutable_grad() = a.grad().clone();
        b2.mutable_grad() = b.grad().clone();
        MultiTensorOptimizer multi(optimizer("sgd", 0.0, 0.0), {a, b});
        torch::optim::SGD reference({a2, b2}, torch::optim::SGDOptions(0.01));
        multi.step();
        reference.step();
        QVERIFY(torch::equal(a, a2));
        QVERIFY(torch::equal(b, b2));
        QCOMPARE_BITS(a[0].item<float>(), 1.0f - 0.01f * 0.5f);
    }
};

QTEST_APPLESS_MAIN(TestMultiTensorOptimizer)
#include "test_multi_tensor_optimizer.moc"
