// The format sweep as the engine runs it (probes.format_sweep_every): on sweep steps
// only, every layer with a matmul/conv weight gets 2 tensors x 7 formats of
// format_sweep records; their numbers are sweepFormats() of the very tensors (the
// layer's first matmul/conv input before the mode touches it, and its unscaled weight
// gradient); counts of a tensor built by hand come out as counted by hand; the sweep
// changes nothing in training (bit-identical losses on and off); every mode writes them.
#include <QtTest/QtTest>

#include <bit>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "ExactCompare.h"
#include "DataLoadSupport.h"
#include "config/RunConfig.h"
#include "engine/ProbeSession.h"
#include "engine/RunRecords.h"
#include "engine/Trainer.h"
#include "precision/formats/FormatSweep.h"
#include "probes/FormatSweepRecord.h"

using namespace ampscope;

namespace {

const std::vector<std::string> kFormats = {"fp16", "bf16", "e4m3", "e5m2", "mxfp8", "mxfp4", "nvfp4"};

RunConfig cnnConfig(const std::string& mode, int64_t probeEvery, int64_t sweepEvery) {
    RunConfig config;
    config.model.name = "simple_cnn";
    config.precision.mode = mode;
    config.probes.every = probeEvery;
    config.probes.format_sweep_every = sweepEvery;
    config.optim.lr = 1e-3;
    return config;
}

DataBundle images() { return test::randomImageData(64, 7, 16); }

// The records of one layer and tensor, in format order.
std::vector<FormatSweepRecord> rowsOf(const ProbeSnapshot& snapshot, const std::string& layer,
                                      std::string_view tensor) {
    std::vector<FormatSweepRecord> rows;
    for (const auto& r : snapshot.formatSweep)
        if (r.layer == layer && r.tensor == tensor) rows.push_back(r);
    return rows;
}

// The records equal sweepFormats() of `values`, format by format, with the block
// formats' blocks along `layout` (a conv's channels, its kernel's C x k x k).
void compareWithSweep(const std::vector<FormatSweepRecord>& rows, const torch::Tensor& values,
                      BlockLayout layout = BlockLayout::LastDim) {
    const auto expected = sweepFormats(values, layout);
    QCOMPARE(rows.size(), expected.size());
    for (size_t k = 0; k < rows.size(); ++k) {
        const auto& s = expected[k].stats;
        QCOMPARE(QString::fromStdString(rows[k].format), QString::fromStdString(expected[k].format));
        QCOMPARE(rows[k].elements, s.elements);
        QCOMPARE(rows[k].underflowed, s.underflowed);
        QCOMPARE(rows[k].saturated, s.saturated);
        QCOMPARE(rows[k].nonFinite, s.nonFinite);
        QCOMPARE_BITS(rows[k].squaredError, s.squaredError);
        QCOMPARE_BITS(rows[k].squaredSignal, s.squaredSignal);
    }
}

// The layers with a matmul/conv weight (a parameter of two or more dimensions).
std::vector<std::string> weightLayers(const Trainer& trainer) {
    std::vector<std::string> layers;
    for (size_t k = 0; k < trainer.parameters().size(); ++k) {
        const auto& name = trainer.model().layerName(trainer.parameterLayers()[k]);
        if (trainer.parameters()[k].dim() >= 2 && (layers.empty() || layers.back() != name))
            layers.push_back(name);
    }
    return layers;
}

// Losses of `steps` steps on the same batches, with the session's probes running;
// `sweepRecords` counts the format_sweep records they wrote.
std::vector<double> losses(const RunConfig& config, const DataBundle& data, int steps, size_t& sweepRecords) {
    sweepRecords = 0;
    torch::manual_seed(config.seed);
    Trainer trainer(config, data, torch::kCPU);
    ProbeSession probes(trainer, config.probes, nullptr);
    std::vector<double> out;
    for (int step = 1; step <= steps; ++step) {
        const auto x = data.train.inputs.slice(0, (step - 1) % 4 * 16, (step - 1) % 4 * 16 + 16);
        const auto y = data.train.targets.slice(0, (step - 1) % 4 * 16, (step - 1) % 4 * 16 + 16);
        probes.beginStep(step);
        out.push_back(trainer.step(x, y).loss);
        if (const auto snapshot = probes.endStep()) sweepRecords += snapshot->formatSweep.size();
    }
    return out;
}

}  // namespace

class FormatSweepTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { at::set_num_threads(1); }

    // probes.every 2, format_sweep_every 4: probe steps 1, 2, 4, 6, 8; sweep steps 4 and
    // 8 (not step 1: a sweep step is a probe step that is a multiple of the cadence). Each sweep step has every weight layer x {gradient, activation} x 7 formats, in
    // layer order, gradient first; the other steps none.
    void recordsOnSweepStepsOnly() {
        const DataBundle data = images();
        const RunConfig config = cnnConfig("fp32", 2, 4);
        torch::manual_seed(1);
        Trainer trainer(config, data, torch::kCPU);
        ProbeSession probes(trainer, config.probes, nullptr);
        const auto layers = weightLayers(trainer);
        QCOMPARE(layers, (std::vector<std::string>{"conv1", "conv2", "fc"}));
        const auto x = data.train.inputs.slice(0, 0, 16);
        const auto y = data.train.targets.slice(0, 0, 16);
        const std::set<int64_t> sweepSteps = {4, 8};
        for (int64_t step = 1; step <= 8; ++step) {
            probes.beginStep(step);
            QCOMPARE(probes.sweepStep(), sweepSteps.count(step) == 1);
            trainer.step(x, y);
            const auto snapshot = probes.endStep();
            QCOMPARE(bool(snapshot), step == 1 || step % 2 == 0);
            if (!snapshot) continue;
            if (!sweepSteps.count(step)) {
                QVERIFY(snapshot->formatSweep.empty());
                continue;
            }
            QCOMPARE(snapshot->formatSweep.size(), layers.size() * 2 * kFormats.size());
            size_t i = 0;
            for (const auto& layer : layers) {
                for (const char* tensor : {"gradient", "activation"}) {
                    for (const auto& format : kFormats) {
                        const auto& r = snapshot->formatSweep[i++];
                        QCOMPARE(r.step, step);
                        QCOMPARE(QString::fromStdString(r.layer), QString::fromStdString(layer));
                        QCOMPARE(QString::fromStdString(r.tensor), QString(tensor));
                        QCOMPARE(QString::fromStdString(r.format), QString::fromStdString(format));
                        QVERIFY(r.elements > 0);
                    }
                }
            }
            // They travel with the probe step's records.
            int64_t written = 0;
            for (const auto& record : probeRecords(*snapshot))
                written += record.at("type") == "format_sweep";
            QCOMPARE(written, int64_t(snapshot->formatSweep.size()));
        }
    }

    // conv1's input is the batch itself and its weight gradient is in the trainer after
    // the step (fp32, no scaler, no clipping): the records are sweepFormats() of both.
    // The batch holds 5 values below fp16's rounding-to-zero threshold (2^-25) and 3
    // above its largest (65504): fp16 counts exactly those, bf16 neither.
    void numbersAreTheSweepOfTheTensors() {
        const DataBundle data = images();
        const RunConfig config = cnnConfig("fp32", 1, 1);
        torch::manual_seed(1);
        Trainer trainer(config, data, torch::kCPU);
        ProbeSession probes(trainer, config.probes, nullptr);
        // Every other value at least 0.01 in magnitude, so only the planted ones fall out.
        auto x = data.train.inputs.slice(0, 0, 16).clone();
        x = x.sign() * (x.abs() + 0.01);
        auto flat = x.view({-1});
        for (int64_t k = 0; k < 5; ++k) flat[k * 101] = 1e-9f;
        for (int64_t k = 0; k < 3; ++k) flat[k * 211 + 7] = 1e6f;
        const auto y = data.train.targets.slice(0, 0, 16);

        probes.beginStep(1);
        trainer.step(x, y);
        const auto snapshot = probes.endStep();
        QVERIFY(snapshot);
        const auto activation = rowsOf(*snapshot, "conv1", "activation");
        compareWithSweep(activation, x, BlockLayout::Channels);
        QCOMPARE(activation[0].elements, x.numel());
        QCOMPARE(activation[0].underflowed, int64_t{5});  // fp16
        QCOMPARE(activation[0].saturated, int64_t{3});
        QCOMPARE(activation[1].underflowed, int64_t{0});  // bf16
        QCOMPARE(activation[1].saturated, int64_t{0});
        const auto weight = trainer.model().layerParameters(0)[0];
        QCOMPARE(weight.dim(), int64_t{4});
        const auto gradient = rowsOf(*snapshot, "conv1", "gradient");
        compareWithSweep(gradient, weight.grad(), BlockLayout::FlattenTrailing);
        // Blocks of the kernel's 1 x 3 x 3 values, not of its rows of 3: mxfp4 differs.
        const auto rowBlocks = sweepFormats(weight.grad(), BlockLayout::LastDim);
        QCOMPARE(QString::fromStdString(gradient[5].format), QString("mxfp4"));
        QVERIFY(gradient[5].squaredError != rowBlocks[5].stats.squaredError);
        // fc's input: conv2's output, pooled, relu'd and flattened (not a batch of the
        // test's): its elements are the batch times fc's input width.
        const auto fcActivation = rowsOf(*snapshot, "fc", "activation");
        QCOMPARE(fcActivation.front().elements, 16 * trainer.model().layerParameters(7)[0].size(1));
    }

    // The sweep draws no random number and changes no value: the losses of a run with a
    // sweep on every step equal, bit for bit, those of the same run without it, also in
    // modes that emulate (fp16), hold a generator (nvfp4's stochastic gradients) or run
    // real autocast (bf16).
    void trainingIsUndisturbed_data() {
        QTest::addColumn<QString>("mode");
        for (const char* mode : {"fp32", "fp16", "bf16", "nvfp4"}) QTest::newRow(mode) << QString(mode);
    }
    void trainingIsUndisturbed() {
        QFETCH(QString, mode);
        const DataBundle data = images();
        RunConfig on = cnnConfig(mode.toStdString(), 1, 1);
        on.precision.nvfp4.stochastic_gradients = true;
        RunConfig off = on;
        off.probes.format_sweep_every = 0;
        size_t swept = 0, unswept = 0;
        const auto withSweep = losses(on, data, 6, swept);
        const auto withoutSweep = losses(off, data, 6, unswept);
        QCOMPARE(swept, 6 * 3 * 2 * kFormats.size());
        QCOMPARE(unswept, size_t{0});
        for (size_t k = 0; k < withSweep.size(); ++k) {
            QVERIFY(std::isfinite(withSweep[k]));
            QCOMPARE(std::bit_cast<uint64_t>(withSweep[k]), std::bit_cast<uint64_t>(withoutSweep[k]));
        }
    }

    // Every mode writes the records. The first layer's activation is the batch as it
    // enters: in the format modes the fp32 values before the mode's quantization, under
    // fp16 emulation before the rounding, under bf16 autocast the fp32 batch. A layer
    // kept in fp32 is swept too.
    void everyModeSweeps_data() {
        QTest::addColumn<QString>("mode");
        for (const char* mode : {"tf32", "fp16", "bf16", "fp16-pure", "bf16-pure", "fp8", "mxfp8", "mxfp4", "nvfp4"})
            QTest::newRow(mode) << QString(mode);
    }
    void everyModeSweeps() {
        QFETCH(QString, mode);
        const DataBundle data = images();
        RunConfig config = cnnConfig(mode.toStdString(), 1, 1);
        if (mode == "fp16") config.precision.keep_fp32 = {"fc"};
        torch::manual_seed(3);
        Trainer trainer(config, data, torch::kCPU);
        ProbeSession probes(trainer, config.probes, nullptr);
        const auto x = data.train.inputs.slice(0, 0, 16);
        const auto y = data.train.targets.slice(0, 0, 16);
        probes.beginStep(1);
        trainer.step(x, y);
        const auto snapshot = probes.endStep();
        QVERIFY(snapshot);
        QCOMPARE(snapshot->formatSweep.size(), 3 * 2 * kFormats.size());
        const bool pure = mode.endsWith("-pure");
        // Pure modes cast the batch to the low dtype before the first layer.
        if (!pure) compareWithSweep(rowsOf(*snapshot, "conv1", "activation"), x, BlockLayout::Channels);
        for (const auto& r : snapshot->formatSweep) {
            QVERIFY2(r.squaredSignal > 0.0, (r.layer + " " + r.tensor + " " + r.format).c_str());
            QCOMPARE(r.nonFinite, int64_t{0});
            // bf16 holds any fp32 tensor's range: its SNR is about 7 mantissa bits' worth.
            if (r.format == "bf16") QVERIFY(r.snrDb() > 40.0);
        }
    }
};

QTEST_GUILESS_MAIN(FormatSweepTest)
#include "test_format_sweep.moc"
