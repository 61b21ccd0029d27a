// The lessons the precision modes must make real: fp16 gradients underflow
// without a scaler and train with one; clipping scaled gradients is wrong;
// pure fp16 loses small updates; an injected fault is found where it was put.
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>

#include "ExactCompare.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "engine/Trainer.h"
#include "engine/FaultInjector.h"

using namespace ampscope;

namespace {

struct UnderflowOutcome {
    double flushedFraction = 0;  // mean over steps of zero weight-gradient elements
    double relativeLoss = 0;     // final val loss / variance of the val targets
};

// tiny_gradients, a linear model, Adam: the weight gradients sit near 4e-9.
UnderflowOutcome trainTinyGradients(const std::string& mode, const std::string& scaler) {
    RunConfig config;
    config.seed = 1;
    config.data.dataset = "tiny_gradients";
    config.data.synthetic_samples = 4096;
    config.model.name = "mlp";
    config.model.hidden = {};
    config.precision.mode = mode;
    config.precision.scaler.kind = scaler;
    config.optim.lr = 0.03;
    const DataBundle data = loadData(config.data, config.seed);
    torch::manual_seed(config.seed);
    Trainer trainer(config, data, c10::Device(c10::kCPU));
    BatchIterator batches(data.train, 128, true, config.seed);
    torch::Tensor weightGrad;
    double flushedSum = 0;
    int steps = 0;
    for (int64_t epoch = 1; epoch <= 32; ++epoch) {
        batches.startEpoch(epoch);
        torch::Tensor x, y;
        while (batches.next(x, y)) {
            trainer.step(x, y);
            // parameters()[0] is the output layer's weight (unscaled gradient).
            flushedSum += (trainer.parameters()[0].grad() == 0).to(torch::kDouble).mean().item<double>();
            ++steps;
        }
    }
    const double variance = data.val.targets.var().item<double>();
    return {flushedSum / steps, trainer.evaluate(data.val, 1000).loss / variance};
}

RunConfig spiralsConfig() {
    RunConfig config;
    config.seed = 3;
    config.data.dataset = "spirals";
    config.data.synthetic_samples = 1024;
    config.model.name = "mlp";
    config.model.hidden = {64, 64};
    return config;
}

}  // namespace

class PrecisionLessonsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(2); }

    void fp16WithoutScalerFlushesAndStalls() {
        const auto fp32 = trainTinyGradients("fp32", "off");
        const auto fp16 = trainTinyGradients("fp16", "off");
        const auto scaled = trainTinyGradients("fp16", "dynamic");
        const auto bf16 = trainTinyGradients("bf16", "off");
        qInfo("flushed / relative loss: fp32 %.3f/%.3f  fp16 %.3f/%.3f  fp16+scaler %.3f/%.3f  bf16 %.3f/%.3f",
              fp32.flushedFraction, fp32.relativeLoss, fp16.flushedFraction, fp16.relativeLoss,
              scaled.flushedFraction, scaled.relativeLoss, bf16.flushedFraction, bf16.relativeLoss);
        QVERIFY(fp16.flushedFraction > 0.9);    // almost every weight gradient is zero
        QVERIFY(fp16.relativeLoss > 0.8);       // and the loss stays at the targets' variance
        QVERIFY(scaled.flushedFraction < 0.01);
        QVERIFY(scaled.relativeLoss < 0.1);
        QVERIFY(bf16.flushedFraction < 0.01);   // bf16 has fp32's exponent range
        QVERIFY(bf16.relativeLoss < 0.1);
        QCOMPARE_BITS(fp32.flushedFraction, 0.0);
        QVERIFY(fp32.relativeLoss < 0.1);
    }

    void clippingScaledGradientsIsWrong() {
        auto config = spiralsConfig();
        const DataBundle data = loadData(config.data, config.seed);
        {
            // Threshold = the median fp32 norm of the same 20 steps, so fp32 clips about half.
            torch::manual_seed(config.seed);
            Trainer probe(config, data, c10::Device(c10::kCPU));
            BatchIterator batches(data.train, 32, true, config.seed);
            batches.startEpoch(1);
            torch::Tensor x, y;
            std::vector<double> norms;
            while (batches.next(x, y) && norms.size() < 20) norms.push_back(probe.step(x, y).gradNorm);
            std::sort(norms.begin(), norms.end());
            config.optim.clip_norm = norms[norms.size() / 2];
        }
        struct ClipOutcome {
            int clipped = 0;
            double meanKeptFraction = 0;         // clipped norm / norm, averaged
            double worstScaledDeviation = 0;     // |clipped norm * scale / threshold - 1|, worst step
        };
        auto countClipped = [&](const std::string& mode, const std::string& scaler, bool afterUnscale) {
            RunConfig c = config;
            c.precision.mode = mode;
            c.precision.scaler.kind = scaler;
            c.optim.clip_after_unscale = afterUnscale;
            torch::manual_seed(c.seed);
            Trainer trainer(c, data, c10::Device(c10::kCPU));
            BatchIterator batches(data.train, 32, true, c.seed);
            batches.startEpoch(1);
            torch::Tensor x, y;
            ClipOutcome out;
            int steps = 0;
            while (batches.next(x, y) && steps < 20) {
                const auto m = trainer.step(x, y);
                out.clipped += m.gradNormClipped < m.gradNorm;
                out.meanKeptFraction += m.gradNormClipped / m.gradNorm / 20.0;
                // Clipping the scaled gradients to T, then unscaling, leaves a norm of T/scale.
                out.worstScaledDeviation = std::max(
                    out.worstScaledDeviation, std::fabs(m.gradNormClipped * m.scale / c.optim.clip_norm - 1.0));
                ++steps;
            }
            return out;
        };
        const auto fp32 = countClipped("fp32", "off", true);
        const auto rightOutcome = countClipped("fp16", "dynamic", true);
        const auto wrongOutcome = countClipped("fp16", "dynamic", false);
        const int fp32Clipped = fp32.clipped, right = rightOutcome.clipped, wrong = wrongOutcome.clipped;
        const double fp32Ratio = fp32.meanKeptFraction, rightRatio = rightOutcome.meanKeptFraction,
                     wrongRatio = wrongOutcome.meanKeptFraction;
        qInfo("clipped steps of 20: fp32 %d, fp16 unscale-first %d, fp16 scaled %d; mean kept norm "
              "fraction %.3g / %.3g / %.3g", fp32Clipped, right, wrong, fp32Ratio, rightRatio, wrongRatio);
        QVERIFY(fp32Clipped >= 5 && fp32Clipped <= 15);  // the threshold is meaningful in fp32
        QVERIFY(std::abs(right - fp32Clipped) <= 2);  // unscale_ first: clips as fp32 does
        QVERIFY(std::fabs(rightRatio - fp32Ratio) < 0.05);
        QCOMPARE(wrong, 20);                     // scaled: the 2^16-times-larger norm always exceeds it
        QVERIFY(wrongRatio < 1e-3);              // and the update is crushed to 1/scale
        QVERIFY(wrongOutcome.worstScaledDeviation < 1e-3);
    }

    void pureFp16LosesSmallUpdates() {
        auto config = spiralsConfig();
        config.optim.name = "sgd";
        config.optim.momentum = 0.0;
        config.optim.lr = 1e-4;  // updates far below half an fp16 ulp of the weights
        config.model.activation = "tanh";  // no dead units: every weight gets a non-zero gradient
        const DataBundle data = loadData(config.data, config.seed);
        auto unchangedFraction = [&](const std::string& mode) {
            RunConfig c = config;
            c.precision.mode = mode;
            c.precision.scaler.kind = "off";
            torch::manual_seed(c.seed);
            Trainer trainer(c, data, c10::Device(c10::kCPU));
            const auto before = trainer.parameters()[2].detach().clone();  // fc2 weight
            BatchIterator batches(data.train, 64, true, c.seed);
            batches.startEpoch(1);
            torch::Tensor x, y;
            for (int i = 0; i < 10 && batches.next(x, y); ++i) trainer.step(x, y);
            return (trainer.parameters()[2].detach() == before).to(torch::kDouble).mean().item<double>();
        };
        const double pure = unchangedFraction("fp16-pure");
        const double master = unchangedFraction("fp16");
        qInfo("weights unchanged after 10 steps: fp16-pure %.3f, fp16 with fp32 master weights %.3f", pure,
              master);
        QVERIFY(pure > 0.9);
        QVERIFY(master < 0.01);
    }

    void injectedInfGradIsLocatedAndBacksOff() {
        auto config = spiralsConfig();
        config.precision.mode = "fp16";
        config.precision.scaler.kind = "dynamic";
        config.precision.scaler.init_scale = 1024;
        const DataBundle data = loadData(config.data, config.seed);
        torch::manual_seed(config.seed);
        Trainer trainer(config, data, c10::Device(c10::kCPU));
        std::vector<FaultConfig> applied;
        FaultInjector faults({FaultConfig{3, "inf_grad", "fc2", 1.0}},
                             [&](const FaultConfig& f) { applied.push_back(f); });
        trainer.setObserver(&faults);
        BatchIterator batches(data.train, 32, true, config.seed);
        batches.startEpoch(1);
        torch::Tensor x, y;
        for (int64_t step = 1; step <= 4 && batches.next(x, y); ++step) {
            faults.beginStep(step);
            const auto before = trainer.parameters()[0].detach().clone();
            const auto m = trainer.step(x, y);
            if (step == 3) {
                QVERIFY(m.foundInf);
                QVERIFY(m.stepSkipped);
                QVERIFY(m.scaleChange == ScaleChange::Backoff);
                QCOMPARE(QString::fromStdString(m.firstNonFiniteLayer), QString("fc2"));
                QCOMPARE_BITS(m.scaleAfter, 512.0);
                QVERIFY(torch::equal(before, trainer.parameters()[0].detach()));  // not stepped
            } else {
                QVERIFY(!m.foundInf);
                QVERIFY(!m.stepSkipped);
            }
        }
        QCOMPARE(applied.size(), size_t(1));
    }
};

QTEST_APPLESS_MAIN(PrecisionLessonsTest)
#include "test_precision_lessons.moc"
