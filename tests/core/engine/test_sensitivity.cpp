// The sensitivity pass against independent truths: a format that rounds nothing scores
// exactly 0; the score ranks (layer, format) pairs as the measured loss change of
// quantizing that one layer does (the ablation, run here with keep_fp32 on every other
// layer); a layer built to saturate under MX's floor scale rule ranks first; FLOPs are
// 2 x batch x in x out for a linear layer; the pass leaves training as it was, bit for bit.
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "engine/SensitivityPass.h"
#include "engine/Trainer.h"
#include "probes/SensitivityRecord.h"

using namespace ampscope;

namespace {

// A spirals MLP with three hidden layers of 64 (fc1, fc2, fc3, out), trained a few
// steps so its gradients are a trained model's, not an initial one's.
struct Fixture {
    RunConfig config;
    DataBundle data;
    std::unique_ptr<Trainer> trainer;
    std::unique_ptr<BatchIterator> batches;

    explicit Fixture(const std::string& scaleRule = "floor", int64_t trainSteps = 10) {
        config = test::spiralsMlpConfig(1024, {64, 64, 64}, 64);
        config.precision.mx.scale_rule = scaleRule;
        config.precision.fp8.recipe = "current";
        torch::manual_seed(config.seed);
        data = loadData(config.data, config.seed);
        trainer = std::make_unique<Trainer>(config, data, c10::Device(c10::kCPU));
        batches = std::make_unique<BatchIterator>(data.train, config.train.batch_size, true, config.seed);
        for (int64_t k = 0; k < trainSteps; ++k) step();
    }
    void step() {
        torch::Tensor x, y;
        if (!batches->next(x, y)) {
            batches->startEpoch(batches->epoch() + 1);
            batches->next(x, y);
        }
        trainer->step(x, y);
    }
};

// The batch loss of `trainer`'s last batch with only `layer` in `mode` (every other layer
// kept in fp32), minus the same loss in fp32: what quantizing that layer alone does.
double ablationLossChange(const Trainer& trainer, const std::string& mode, const std::string& layer) {
    RunConfig fp32 = trainer.config();
    fp32.precision.mode = "fp32";
    RunConfig one = fp32;
    one.precision.mode = mode;
    for (const auto& name : trainer.model().layerNames())
        if (name != layer) one.precision.keep_fp32.push_back(name);
    const TensorDataset batch{trainer.lastInputs(), trainer.lastTargets()};
    auto reference = trainer.twin(fp32);
    auto quantized = trainer.twin(one);
    reference->copyStateFrom(trainer);
    quantized->copyStateFrom(trainer);
    const int64_t n = batch.size();
    return quantized->evaluate(batch, n).loss - reference->evaluate(batch, n).loss;
}

// Spearman's rank correlation (average ranks for ties), written out here.
std::vector<double> ranks(const std::vector<double>& values) {
    std::vector<size_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
    std::vector<double> rank(values.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
        for (size_t k = i; k <= j; ++k) rank[order[k]] = (double(i) + double(j)) / 2.0 + 1.0;
        i = j + 1;
    }
    return rank;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
    const auto ra = ranks(a), rb = ranks(b);
    const double n = double(ra.size());
    const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
    const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
    double sab = 0, saa = 0, sbb = 0;
    for (size_t k = 0; k < ra.size(); ++k) {
        sab += (ra[k] - ma) * (rb[k] - mb);
        saa += (ra[k] - ma) * (ra[k] - ma);
        sbb += (rb[k] - mb) * (rb[k] - mb);
    }
    return sab / std::sqrt(saa * sbb);
}

}  // namespace

class SensitivityTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void formatThatRoundsNothingScoresExactlyZero() {
        Fixture f;
        SensitivityPass pass({"fp32", "mxfp4"});
        const auto record = pass.measure(*f.trainer, 10);
        QCOMPARE(record.layers.size(), size_t(4));
        for (const auto& layer : record.layers) {
            QCOMPARE_BITS(layer.in("fp32")->score, 0.0);
            QCOMPARE(layer.in("fp32")->elements, int64_t(0));  // fp32 quantizes nothing
            // The same layer in MXFP4 does lose something: the zero above is no accident.
            QVERIFY2(layer.in("mxfp4")->score > 0.0, layer.layer.c_str());
            QVERIFY(layer.in("mxfp4")->elements > 0);
        }
    }

    void flopsAreTwiceBatchTimesInTimesOut() {
        Fixture f;
        SensitivityPass pass({"mxfp8"});
        const auto record = pass.measure(*f.trainer, 10);
        const double batch = double(f.trainer->lastInputs().size(0));
        QCOMPARE(record.layers[0].layer, std::string("fc1"));
        QCOMPARE_BITS(record.layers[0].flops, 2.0 * batch * 2 * 64);   // spirals: 2 features
        QCOMPARE_BITS(record.layers[1].flops, 2.0 * batch * 64 * 64);
        QCOMPARE_BITS(record.layers[3].flops, 2.0 * batch * 64 * double(f.data.num_classes));
        // Input and weight elements, once each: fc2 takes a [batch, 64] input and a 64x64 weight.
        QCOMPARE(record.layers[1].in("mxfp8")->elements, int64_t(batch * 64 + 64 * 64));
    }

    // The score estimates E[(loss change)^2] of quantizing one layer alone, to first order:
    // its ranking of every (layer, format) pair must follow the ablation's measured squared
    // loss change, both averaged over the same batches, and its size be that change's
    // within a factor of 3 for the pairs that change the loss most (MXFP4).
    void scoreRanksLikeTheMeasuredLossChange() {
        Fixture f;
        const std::vector<std::string> formats{"fp8", "mxfp8", "mxfp4", "nvfp4"};
        SensitivityPass pass(formats);
        const std::vector<std::string> layers{"fc1", "fc2", "fc3", "out"};  // the matmul layers
        std::vector<double> scores(layers.size() * formats.size(), 0.0), measured(scores.size(), 0.0),
            fisher(scores.size(), 0.0);
        const int batches = 6;
        for (int b = 0; b < batches; ++b) {
            f.step();
            const auto record = pass.measure(*f.trainer, 10 + b);
            QCOMPARE(record.layers.size(), layers.size());
            for (const auto& layer : record.layers) QCOMPARE(layer.formats.size(), formats.size());
            for (size_t l = 0; l < layers.size(); ++l)
                for (size_t k = 0; k < formats.size(); ++k) {
                    scores[l * formats.size() + k] += record.layers[l].in(formats[k])->score;
                    fisher[l * formats.size() + k] += record.layers[l].in(formats[k])->fisher;
                    const double change = ablationLossChange(*f.trainer, formats[k], layers[l]);
                    measured[l * formats.size() + k] += change * change;
                }
        }
        for (size_t k = 0; k < scores.size(); ++k)
            qInfo("%s %s: score %.3e, fisher %.3e, measured %.3e", layers[k / formats.size()].c_str(),
                  formats[k % formats.size()].c_str(), scores[k] / batches, fisher[k] / batches, measured[k] / batches);
        qInfo("Spearman of the Fisher diagonal (ModelOpt's score) and the measured: %.3f", spearman(fisher, measured));
        const double rho = spearman(scores, measured);
        qInfo("Spearman rank correlation of score and measured (loss change)^2 over %zu pairs: %.3f",
              scores.size(), rho);
        QVERIFY2(rho >= 0.9, qPrintable(QString("rank correlation %1").arg(rho)));
        for (size_t l = 0; l < layers.size(); ++l) {
            const double ratio = scores[l * formats.size() + 2] / measured[l * formats.size() + 2];
            QVERIFY2(ratio > 1.0 / 3.0 && ratio < 3.0, qPrintable(QString("%1: score / measured %2")
                                                                     .arg(layers[l].c_str()).arg(ratio)));
        }
    }

    // Outlier channels entering fc2, as large language models grow them: fc1's busiest unit in
    // each block (weight rows and biases) times 64 and fc2's weight columns for them divided by 64
    // compute the same function (ReLU is positively homogeneous), but each of fc2's two
    // input blocks of 32 now holds one element 64 times its others, which MXFP4's shared
    // scale crushes to zero.
    // Without the outlier fc2 is not the most sensitive layer in MXFP4; with it, it is.
    // The floor rule saturates some of the outliers (those above 6 x 2^(e-2)); rceil, whose
    // scale always holds the block's largest value, none.
    void outlierChannelRanksItsLayerFirst() {
        for (const std::string rule : {"none", "floor", "rceil"}) {
            Fixture f(rule == "none" ? "floor" : rule);
            if (rule != "none") {
                torch::NoGradGuard noGrad;
                const auto& names = f.trainer->model().layerNames();
                const auto index = [&](const char* name) {
                    return size_t(std::find(names.begin(), names.end(), name) - names.begin());
                };
                auto fc1 = f.trainer->model().layerParameters(index("fc1"));  // weight [64, 2], bias [64]
                auto fc2 = f.trainer->model().layerParameters(index("fc2"));  // weight [64, 64], bias [64]
                QCOMPARE(fc2[0].sizes(), torch::IntArrayRef({64, 64}));
                // The busiest unit of each of fc2's two input blocks on the last batch (a unit
                // ReLU keeps at zero would be an outlier of nothing).
                const auto active = torch::relu(torch::linear(f.trainer->lastInputs(), fc1[0], fc1[1])).mean(0);
                const int64_t first = active.slice(0, 0, 32).argmax().item<int64_t>();
                const int64_t second = 32 + active.slice(0, 32, 64).argmax().item<int64_t>();
                for (const int64_t unit : {first, second}) {
                    fc1[0].select(0, unit).mul_(64.0);
                    fc1[1].select(0, unit).mul_(64.0);
                    fc2[0].select(1, unit).div_(64.0);
                }
            }
            f.step();
            SensitivityPass pass({"mxfp4"});
            const auto record = pass.measure(*f.trainer, 11);
            const auto ranked = rankByScore(record, "mxfp4");
            const auto* fc2 = record.layers[1].in("mxfp4");
            qInfo("%s: first %s; fc2 score %.3e, saturated %lld of %lld", rule.c_str(), ranked[0]->layer.c_str(),
                  fc2->score, (long long)fc2->saturated, (long long)fc2->elements);
            if (rule == "none") {
                QVERIFY(ranked[0]->layer != "fc2");
            } else {
                QCOMPARE(ranked[0]->layer, std::string("fc2"));
                if (rule == "floor") QVERIFY(fc2->saturated > 0);
                else QCOMPARE(fc2->saturated, int64_t(0));
            }
        }
    }

    // Measuring only reads the run (weights, batch; its format state and generator are
    // not the twins'): a run measured between its steps trains bit for bit as one that is not.
    void passLeavesTrainingAsItWas() {
        RunConfig config = test::spiralsMlpConfig(512, {32}, 32);
        config.precision.mode = "mxfp4";  // the run itself in a format: its own twin state must stay its own
        auto losses = [&](bool measure) {
            torch::manual_seed(config.seed);
            const auto data = loadData(config.data, config.seed);
            Trainer trainer(config, data, c10::Device(c10::kCPU));
            BatchIterator batches(data.train, config.train.batch_size, true, config.seed);
            SensitivityPass pass({"mxfp4", "nvfp4"});
            std::vector<double> out;
            torch::Tensor x, y;
            for (int k = 0; k < 6 && batches.next(x, y); ++k) {
                out.push_back(trainer.step(x, y).loss);
                if (measure) (void)pass.measure(trainer, k + 1);
            }
            return out;
        };
        const auto plain = losses(false), measured = losses(true);
        QCOMPARE(plain.size(), size_t(6));
        for (size_t k = 0; k < plain.size(); ++k) QCOMPARE_BITS(measured[k], plain[k]);
    }

    void recordRoundTripsAndCombinesAsMeans() {
        SensitivityRecord a;
        a.step = 5;
        a.loss = 1.0;
        a.formats = {"mxfp4"};
        a.layers = {{"fc1", 100.0, {{"mxfp4", 2.0, -1.0, 0.5, 10, 1, 2}}},
                    {"fc2", 300.0, {{"mxfp4", std::nan(""), 0.0, 0.0, 30, 0, 3}}}};
        SensitivityRecord b = a;
        b.step = 10;
        b.loss = 3.0;
        b.layers[0].formats[0].score = 4.0;
        const auto back = sensitivityRecordFromJson(nlohmann::json::parse(toJson(a).dump()));
        QCOMPARE(back.layers.size(), size_t(2));
        QCOMPARE_BITS(back.layers[0].in("mxfp4")->score, 2.0);
        QVERIFY(std::isnan(back.layers[1].in("mxfp4")->score));
        QCOMPARE(back.layers[1].in("mxfp4")->flushed, int64_t(3));
        const auto both = combineSensitivity({a, b});
        QCOMPARE(both.step, int64_t(10));
        QCOMPARE_BITS(both.loss, 2.0);
        QCOMPARE_BITS(both.layers[0].in("mxfp4")->score, 3.0);
        QCOMPARE_BITS(both.layers[0].in("mxfp4")->lossChange, -1.0);
        QCOMPARE_BITS(back.layers[0].in("mxfp4")->fisher, 0.5);
        QCOMPARE(both.layers[0].in("mxfp4")->elements, int64_t(20));
        QCOMPARE_BITS(both.layers[0].in("mxfp4")->saturatedShare(), 0.1);
        // A NaN score ranks first: a layer whose values are not finite is the most sensitive.
        QCOMPARE(rankByScore(both, "mxfp4")[0]->layer, std::string("fc2"));
    }

    void formatListIsChecked() {
        QCOMPARE(parseSensitivityFormats("mxfp4,fp8,mxfp4", "--formats"), (std::vector<std::string>{"mxfp4", "fp8"}));
        try {
            parseSensitivityFormats("fp8,fp4", "--formats");
            QFAIL("fp4 accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("--formats: unknown format 'fp4' (valid: fp8, mxfp8, mxfp4, nvfp4)"));
        }
        QVERIFY_THROWS_EXCEPTION(InputError, parseSensitivityFormats(",", "--formats"));
    }
};

QTEST_GUILESS_MAIN(SensitivityTest)
#include "test_sensitivity.moc"
