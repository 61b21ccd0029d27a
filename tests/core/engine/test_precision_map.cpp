// The precision map against theory: fp32 mapped against fp32 is exact; an op that only
// rounds stays within the unit roundoff, with the RMS error of round-to-nearest; ops that
// only move or select values add nothing; a bf16 dot product with fp32 accumulation has
// the error of its roundings; a log of a sum of tiny values is flagged at the sum;
// the zoo's simple_cnn and its TorchScript export give the same map; and a run with maps
// trains exactly as one without.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <memory>
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "DataLoadSupport.h"
#include "ExactCompare.h"
#include "RunSupport.h"
#include "engine/Engine.h"
#include "engine/PrecisionMapRun.h"
#include "engine/StepReplay.h"
#include "engine/Trainer.h"
#include "precision/Autocast.h"
#include "precision/InsertedOps.h"
#include "precision/NamedOpScope.h"
#include "precision/Rounding.h"
#include "probes/OpCapture.h"
#include "probes/PrecisionMapCompare.h"
#include "PrecisionMapSupport.h"
#include "run/RunReader.h"

using namespace ampscope;
using namespace ampscope::test;

namespace {

QString fixtures() { return qEnvironmentVariable("AMPSCOPE_SCRIPT_FIXTURES"); }

RunConfig zooConfig(const std::string& model, const std::string& mode) {
    RunConfig c;
    c.model.name = model;
    c.precision.mode = mode;
    c.optim.name = "adam";
    c.optim.lr = 1e-3;
    return c;
}

RunConfig scriptConfig(const char* file, const std::string& mode) {
    RunConfig c = zooConfig("torchscript", mode);
    c.model.path = (fixtures() + "/" + file).toStdString();
    return c;
}

// Equal, both NaN, or within 1e-6 relative (sums over the elements in another order).
bool agree(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b || std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b));
}

bool sameHistogram(const ExponentHistogram& a, const ExponentHistogram& b) {
    return a.counts == b.counts && a.below == b.below && a.above == b.above && a.zero == b.zero && a.nan == b.nan &&
           a.posInf == b.posInf && a.negInf == b.negInf;
}

PrecisionMapRecord mapOneStep(const RunConfig& config, const DataBundle& data, int64_t batch = 16) {
    torch::manual_seed(5);
    Trainer trainer(config, data, torch::kCPU);
    MapStep map(trainer);
    return map.step(data.train.inputs.slice(0, 0, batch), data.train.targets.slice(0, 0, batch));
}

}  // namespace

class PrecisionMapTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { at::set_num_threads(1); }

    // Same kernels, same threads, same state: every op's output is bit for bit the
    // reference's, and every op run again in fp32 gives the same bits.
    void fp32AgainstFp32IsExact_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("zoo simple_cnn") << "simple_cnn";
        QTest::newRow("zoo mlp with BatchNorm") << "batchnorm_mlp";
        QTest::newRow("TorchScript simple_cnn") << "simple_cnn.pt";
        QTest::newRow("TorchScript residual_mlp") << "residual_mlp.pt";
    }
    void fp32AgainstFp32IsExact() {
        QFETCH(QString, model);
        const bool script = model.endsWith(".pt");
        if (script && !QFile::exists(fixtures() + "/" + model)) QSKIP("no TorchScript fixtures");
        const auto config = script ? scriptConfig(model.toUtf8().constData(), "fp32")
                                   : zooConfig(model.toStdString(), "fp32");
        const auto map = mapOneStep(config, test::randomImageData(32, 3, 8));
        QVERIFY(map.ops.size() > 10);
        QVERIFY(findOp(map, "aten::mm", "backward") || findOp(map, "aten::convolution_backward", "backward") ||
                findOp(map, "aten::addmm", "backward"));
        for (const auto& u : map.unmatched)
            qWarning("unmatched: %s in %s (%s), %s only", u.op.c_str(), u.module.c_str(), u.phase.c_str(), u.side.c_str());
        QVERIFY(map.unmatched.empty());
        int measured = 0;
        for (const auto& row : map.ops) {
            QVERIFY2(row.relError == 0.0 && row.ulpsMax == 0.0 && row.newNan == 0 && row.newInf == 0,
                     qPrintable(describe(row)));
            QVERIFY2(std::isnan(row.addedError) || row.addedError == 0.0, qPrintable(describe(row)));
            measured += std::isnan(row.addedError) ? 0 : 1;
        }
        QVERIFY(measured > static_cast<int>(map.ops.size()) / 2);
        QCOMPARE(map.formatForward, std::string("fp32"));
        QVERIFY(!map.firstPastTolerance().has_value());
    }

    // Round-to-nearest: each element's error is at most half a spacing (|x - ref| <= u |ref|,
    // so the normwise error is at most u too); relative to the power of two at each value
    // it is uniform in [-u, u], RMS u / sqrt(3), i.e. 1/sqrt(12) of a spacing.
    void anOpThatOnlyRounds_data() {
        QTest::addColumn<int>("bits");
        QTest::newRow("bf16") << 8;
        QTest::newRow("fp16") << 11;
    }
    void anOpThatOnlyRounds() {
        QFETCH(int, bits);
        const double u = std::ldexp(1.0, -bits);
        const auto format = bits == 8 ? bf16Format() : fp16Format();
        const auto rounding = bits == 8 ? Rounding::BFloat16 : Rounding::Half;
        torch::manual_seed(1);
        const auto x = torch::randn({1 << 20});
        PrecisionMapOp row;
        measureOutput(roundTo(x, rounding), x, {}, format, row);
        QVERIFY2(row.relError <= u, qPrintable(QString::number(row.relError / u)));
        QVERIFY2(row.ulpsMax <= 0.5, qPrintable(QString::number(row.ulpsMax)));
        const double rms = 2.0 * u * row.ulpsRms;  // relative to the power of two at each value
        const double theory = u / std::sqrt(3.0);
        QVERIFY2(std::abs(rms / theory - 1.0) <= 0.2, qPrintable(QString("RMS %1 u/sqrt(3)").arg(rms / theory)));

        // Through the capture: an op's result rounded (a pure-mode module output) is that op
        // as the run holds it; the error it adds is the rounding alone.
        const auto a = torch::randn({256, 1024}).abs() + 0.5;
        const auto map = mapOf(
            [&] {
                const auto y = torch::relu(a);
                NamedOpScope leave(inserted_op::kLeaveModule, y);
                leave.output(roundWithGradient(y, rounding, rounding));  // the last op: the scope may stay open
            },
            [&] {
                const auto y = torch::relu(a);
                NamedOpScope leave(inserted_op::kLeaveModule, y);
                leave.output(y);
            },
            MapFormats{format, format});
        const auto* relu = findOp(map, "aten::relu");
        QVERIFY(relu);
        QVERIFY2(relu->relError > 0.0 && relu->relError <= u, qPrintable(describe(*relu)));
        QVERIFY2(relu->addedError == relu->relError, qPrintable(describe(*relu)));
        QVERIFY2(std::abs(2.0 * u * relu->ulpsRms / theory - 1.0) <= 0.2, qPrintable(describe(*relu)));
    }

    // ReLU, max-pool, reshape and transpose move or select values: run in fp32 on the
    // run's own inputs they give the run's output bit for bit, so they add no error, and
    // the error of what they move is the error of their input.
    void selectionOpsAddNoError() {
        torch::manual_seed(2);
        const auto a = torch::randn({8, 4, 16, 16});
        const auto ops = [&](bool rounded) {
            auto x = a * 3.0;  // an op whose output carries the rounding error
            {
                NamedOpScope result(inserted_op::kOpResult, x);
                x = result.output(rounded ? roundWithGradient(x, Rounding::BFloat16, Rounding::BFloat16) : x);
            }
            torch::relu(x);
            torch::max_pool2d(x, {2, 2});
            x.reshape({8, -1});
            x.transpose(1, 3);
        };
        const auto map = mapOf([&] { ops(true); }, [&] { ops(false); }, MapFormats{bf16Format(), bf16Format()});
        const auto* mul = findOp(map, "aten::mul");
        QVERIFY(mul && mul->relError > 0.0);
        for (const char* name : {"aten::relu", "aten::max_pool2d", "aten::reshape", "aten::transpose"}) {
            const auto* row = findOp(map, name);
            QVERIFY2(row, name);
            QVERIFY2(row->addedError == 0.0, qPrintable(describe(*row)));
            QVERIFY2(row->inputError == mul->relError, qPrintable(describe(*row)));
        }
        // Reshape and transpose keep every element: the same error, up to the order of the sums.
        for (const char* name : {"aten::reshape", "aten::transpose"}) {
            const auto* row = findOp(map, name);
            QVERIFY2(std::abs(row->relError - row->inputError) <= 1e-12 * row->inputError, qPrintable(describe(*row)));
        }

        // In a model: simple_cnn in bf16 (CPU autocast), forward and backward.
        const auto model = mapOneStep(zooConfig("simple_cnn", "bf16"), test::randomImageData(32, 4, 8));
        int checked = 0;
        for (const auto& row : model.ops) {
            const bool moves = row.op == "aten::relu" || row.op == "aten::max_pool2d" || row.op == "aten::flatten" ||
                               row.op == "aten::threshold_backward" || row.op == "aten::view" ||
                               row.op == "aten::max_pool2d_with_indices_backward";
            if (!moves) continue;
            ++checked;
            QVERIFY2(row.addedError == 0.0, qPrintable(describe(row)));
        }
        QVERIFY2(checked >= 8, qPrintable(QString::number(checked)));
        const auto* flatten = findOp(model, "aten::flatten");
        QVERIFY(flatten);
        QVERIFY2(std::abs(flatten->relError - flatten->inputError) <= 1e-12 * flatten->inputError,
                 qPrintable(describe(*flatten)));
    }

    // x.y with x, y rounded to bf16, the products summed in fp32 (the CPU's bf16 gemm,
    // oneDNN's or ATen's, accumulates in fp32) and the sum rounded to bf16. The standard
    // bound (|out - x.y| <= c sum|x_k y_k|) has 22x to 165x slack on random data and
    // cannot fail: the error is held to its expected size instead, two-sided. That size is
    // the error of bf16(x'.y') with x', y' the bf16 inputs and the dot product exact (in
    // double: a product of two bf16 values is exact, the sum of K of them within 2^-40 of
    // it). The fp32 accumulation the kernel really does moves each sum by about sqrt(K)
    // 2^-24 relative (2^-10 of a bf16 spacing at K 4096), so it changes the bf16 rounding
    // of a few elements in ten thousand, by one spacing (measured: 3 in 10^4, the normwise
    // error 1 + 1.1e-5 of the expected at K 4096, 1 - 5e-7 at K 64); the fp32 reference's
    // own error is as small. The test allows 1e-3. An error of the wrong size (a rounding
    // missed, the error squared) is off by far more; fp16 inputs (8x less) or bf16
    // accumulation would be too.
    void bf16DotProductHasTheErrorOfItsRoundings_data() {
        QTest::addColumn<int>("k");
        QTest::newRow("K 64") << 64;
        QTest::newRow("K 4096") << 4096;
    }
    void bf16DotProductHasTheErrorOfItsRoundings() {
        QFETCH(int, k);
        torch::manual_seed(3);
        const auto x = torch::randn({64, k});
        const auto y = torch::randn({k, 48});
        const auto map = mapOf(
            [&] {
                AutocastScope autocast(c10::DeviceType::CPU, torch::kBFloat16, true);
                torch::mm(x, y);
            },
            [&] { torch::mm(x, y); }, MapFormats{bf16Format(), bf16Format()});
        const auto* mm = findOp(map, "aten::mm");
        QVERIFY(mm);
        const auto inDouble = [](const torch::Tensor& t) { return t.to(torch::kDouble); };
        const auto bf16 = [](const torch::Tensor& t) { return t.to(torch::kBFloat16).to(torch::kDouble); };
        const auto exact = torch::mm(inDouble(x), inDouble(y));
        const auto expectedRun = bf16(torch::mm(bf16(x), bf16(y)));
        const double expected = ((expectedRun - exact).norm() / exact.norm()).item<double>();
        // The expected size is itself that of bf16's roundings: between u/4 and u.
        const double u = std::ldexp(1.0, -8);
        QVERIFY2(expected > u / 4 && expected < u, qPrintable(QString::number(expected / u)));
        QVERIFY2(std::abs(mm->relError / expected - 1.0) <= 1e-3,
                 qPrintable(QString("rel %1, expected %2").arg(mm->relError, 0, 'g', 17).arg(expected, 0, 'g', 17)));
        // Run again in fp32 on the run's own inputs, the mm is the reference's mm: all of
        // the error is its own.
        QCOMPARE_BITS(mm->addedError, mm->relError);
    }

    // log(x.sum()) over values below fp16's range: the sum of the fp16 values is 0 (every
    // term flushed), and the log of it -inf. The error enters at the sum; the log only
    // passes on what it was given (its own added error is 0), though its output is new Inf.
    void logOfSmallSumFlaggedAtTheSum() {
        torch::manual_seed(4);
        const auto a = torch::rand({4096}) + 0.5;
        const auto graph = [&](bool half) {
            auto x = a * 1e-9;
            // CPU LibTorch has no fp16 log: the sum comes back to fp32 for it, as autocast does.
            torch::log(half ? x.to(torch::kHalf).sum().to(torch::kFloat) : x.sum());
        };
        const auto map = mapOf([&] { graph(true); }, [&] { graph(false); }, MapFormats{fp16Format(), fp16Format()});
        const auto first = map.firstPastTolerance();
        QVERIFY(first.has_value());
        QCOMPARE(map.ops[*first].op, std::string("aten::sum"));
        QCOMPARE_BITS(map.ops[*first].flushed, 1.0);
        const auto* log = findOp(map, "aten::log");
        QVERIFY(log);
        QCOMPARE(log->newInf, int64_t{1});
        QVERIFY2(!(log->addedError > 0.0), qPrintable(describe(*log)));

        // The lesson's model (fp16, the tiny values made by loss_head): flagged in
        // loss_head, where they flush, before the loss's sum and log.
        RunConfig lesson = zooConfig("log_sum", "fp16");
        lesson.model.hidden = {32};
        lesson.data.dataset = "spirals";
        lesson.data.synthetic_samples = 256;
        const DataBundle data = loadData(lesson.data, 0);
        const auto lessonMap = mapOneStep(lesson, data, 64);
        const auto flagged = lessonMap.firstPastTolerance();
        QVERIFY(flagged.has_value());
        QCOMPARE(lessonMap.ops[*flagged].module, std::string("loss_head"));
        QCOMPARE(lessonMap.ops[*flagged].phase, std::string("forward"));
        const auto* lessonLog = findOp(lessonMap, "aten::log");
        QVERIFY(lessonLog && lessonLog->newInf == 1);
        QVERIFY(*flagged < static_cast<size_t>(lessonLog - lessonMap.ops.data()));
    }

    // The export of the zoo's simple_cnn, from the zoo model's weights, is mapped op for op
    // as the zoo model is: the same modules, phases, nodes and outputs, every number of
    // every op (errors, ulps, the fractions flushed and saturated, new NaN/Inf, both
    // histograms) and every module's errors entering and leaving.
    void zooAndTorchScriptGiveTheSameMap_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("bf16") << "bf16";
        QTest::newRow("fp16 emulated") << "fp16";
        QTest::newRow("mxfp8") << "mxfp8";
    }
    void zooAndTorchScriptGiveTheSameMap() {
        QFETCH(QString, mode);
        if (!QFile::exists(fixtures() + "/simple_cnn.pt")) QSKIP("no TorchScript fixtures");
        const DataBundle data = test::randomImageData(32, 6, 8);
        RunConfig zooRun = zooConfig("simple_cnn", mode.toStdString());
        RunConfig scriptRun = scriptConfig("simple_cnn.pt", mode.toStdString());
        scriptRun.model.probe_modules = {"conv1", "pool1", "relu1", "conv2", "pool2", "relu2", "flatten", "fc"};
        torch::manual_seed(11);
        Trainer zoo(zooRun, data, torch::kCPU);
        Trainer script(scriptRun, data, torch::kCPU);
        script.copyStateFrom(zoo);
        const auto x = data.train.inputs.slice(0, 0, 16), y = data.train.targets.slice(0, 0, 16);
        PrecisionMapRecord a, b;
        {
            MapStep map(zoo);
            a = map.step(x, y);
        }
        {
            MapStep map(script);
            b = map.step(x, y);
        }
        QCOMPARE(b.ops.size(), a.ops.size());
        QCOMPARE(b.unmatched.size(), a.unmatched.size());
        // The traced conv is aten::_convolution where the zoo calls aten::conv2d.
        const auto sameOp = [](const std::string& zooOp, const std::string& scriptOp) {
            return zooOp == scriptOp || (zooOp == "aten::conv2d" && scriptOp == "aten::_convolution");
        };
        // And its backward is autograd's ConvolutionBackward1 where conv2d's is ConvolutionBackward0.
        const auto sameNode = [](const std::string& zooNode, const std::string& scriptNode) {
            return zooNode == scriptNode || (zooNode == "ConvolutionBackward0" && scriptNode == "ConvolutionBackward1");
        };
        // Every disagreement listed, then the test fails on them. The error a conv or linear
        // adds itself is listed apart: it is the one that needs the operands as they were
        // before the graph pass's roundings (conv1's, on exact data, is all of its error).
        QStringList differ, addedDiffer;
        const auto check = [&](bool same, const char* what, const QString& where) {
            if (!same) (QString(what) == "added_error" ? addedDiffer : differ) << QString("%1: %2").arg(what, where);
        };
        for (size_t k = 0; k < a.ops.size(); ++k) {
            const auto& za = a.ops[k];
            const auto& sb = b.ops[k];
            QVERIFY2(sameOp(za.op, sb.op) && za.module == sb.module && za.phase == sb.phase && za.output == sb.output,
                     qPrintable(describe(za) + " / " + describe(sb)));
            const QString both = describe(za) + " / " + describe(sb);
            // The counts and histograms exactly; what sums over elements within 1e-6 of it.
            check(sameNode(za.node, sb.node), "node", QString::fromStdString(za.node + " / " + sb.node + " ") + both);
            check(za.elements == sb.elements && za.newNan == sb.newNan && za.newInf == sb.newInf, "counts", both);
            check(za.flushed == sb.flushed && za.saturated == sb.saturated, "flushed/saturated", both);
            check(sameHistogram(za.run, sb.run) && sameHistogram(za.reference, sb.reference), "histograms", both);
            for (const auto& [name, zooValue, scriptValue] :
                 {std::tuple{"rel_error", za.relError, sb.relError}, std::tuple{"snr_db", za.snrDb, sb.snrDb},
                  std::tuple{"added_error", za.addedError, sb.addedError},
                  std::tuple{"input_error", za.inputError, sb.inputError},
                  std::tuple{"ulps_max", za.ulpsMax, sb.ulpsMax}, std::tuple{"ulps_rms", za.ulpsRms, sb.ulpsRms}})
                check(agree(zooValue, scriptValue), name, both);
        }
        QCOMPARE(b.modules.size(), a.modules.size());
        for (size_t k = 0; k < a.modules.size(); ++k) {
            const auto& za = a.modules[k];
            const auto& sb = b.modules[k];
            const QString both = QString::fromStdString(za.module + " " + za.phase + " / " + sb.module + " " + sb.phase);
            check(za.module == sb.module && za.phase == sb.phase && za.firstOp == sb.firstOp && za.ops == sb.ops,
                  "module", both);
            check(agree(za.inputError, sb.inputError) && agree(za.outputError, sb.outputError), "module errors", both);
        }
        QVERIFY2(differ.isEmpty(), qPrintable(differ.join("\n")));
        QVERIFY2(addedDiffer.isEmpty(), qPrintable(addedDiffer.join("\n")));
    }

    // A step mapped trains on as one that was not: the same losses, bit for bit, step by
    // step, in the zoo and for a TorchScript model, in plain, scaled and format modes.
    void trainingGoesOnAsWithoutTheMap_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        QTest::newRow("mlp fp32") << "mlp" << "fp32";
        QTest::newRow("mlp fp16 (dynamic scaler)") << "mlp" << "fp16";
        QTest::newRow("mlp bf16") << "mlp" << "bf16";
        QTest::newRow("mlp mxfp8") << "mlp" << "mxfp8";
        QTest::newRow("mlp nvfp4 (stochastic gradients)") << "mlp" << "nvfp4";
        QTest::newRow("mlp fp8 (delayed scaling)") << "mlp" << "fp8";
        QTest::newRow("batchnorm_mlp bf16-pure") << "batchnorm_mlp" << "bf16-pure";
        QTest::newRow("TorchScript residual_mlp bf16") << "residual_mlp.pt" << "bf16";
    }
    void trainingGoesOnAsWithoutTheMap() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        const bool script = model.endsWith(".pt");
        if (script && !QFile::exists(fixtures() + "/" + model)) QSKIP("no TorchScript fixtures");
        RunConfig config = test::spiralsMlp(mode.toStdString());
        if (script) {
            config = scriptConfig(model.toUtf8().constData(), mode.toStdString());
            config.threads = 1;
            config.data.dataset = "fashion_mnist";
            config.data.subset = 256;
            config.train.batch_size = 32;
        } else {
            config.model.name = model.toStdString();
        }
        if (mode == "nvfp4") config.precision.nvfp4.stochastic_gradients = true;
        config.train.max_steps = 6;
        config.probes.every = 2;
        QTemporaryDir tmp;
        if (script && !QFile::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz") &&
            qEnvironmentVariableIsEmpty("AMPSCOPE_FASHION_MNIST"))
            QSKIP("no FashionMNIST (dataset-fashion-mnist)");
        const auto plain = test::runAndRead(config, tmp, "plain");
        config.probes.precision_map_steps = {2, 3, 5};
        const auto mapped = test::runAndRead(config, tmp, "mapped");
        QCOMPARE(test::recordsOf(mapped, "precision_map").size(), size_t{3});
        // The record holds the loss as written (every digit a double needs): its bits.
        const auto losses = [](const RunData& run) {
            std::vector<double> values;
            for (const auto& r : test::recordsOf(run, "step")) values.push_back(r["loss"].get<double>());
            return values;
        };
        const auto mappedLosses = losses(mapped), plainLosses = losses(plain);
        QCOMPARE(mappedLosses.size(), size_t{6});
        QCOMPARE(plainLosses.size(), mappedLosses.size());
        for (size_t k = 0; k < mappedLosses.size(); ++k) QCOMPARE_BITS(mappedLosses[k], plainLosses[k]);
        // And the probes of the mapped steps saw the step, not the map's runs of it.
        const auto histograms = [](const RunData& run) {
            std::vector<std::string> text;
            for (const auto& r : test::recordsOf(run, "histogram")) text.push_back(r.dump());
            return text;
        };
        QCOMPARE(histograms(mapped), histograms(plain));
    }

    // "Map this step against fp32" on a paused run whose probes are all off: the step
    // stepped once after the request is mapped, only that one, and the losses are the
    // plain run's.
    void aMapAskedForWithProbesOffMapsTheNextStep() {
        RunConfig config = test::spiralsMlp("bf16");
        config.probes.every = 0;
        config.probes.locate_nonfinite = "off";
        config.train.max_steps = 4;
        QTemporaryDir tmp;
        const auto plain = test::runAndRead(config, tmp, "plain");
        QVERIFY(test::recordsOf(plain, "precision_map").empty());

        const std::string dir = tmp.filePath("asked").toStdString();
        Engine engine(config, dir);
        engine.pause();
        engine.start();
        const auto stepsArrived = [&engine](size_t wanted) {
            size_t got = 0;
            QElapsedTimer timer;
            timer.start();
            while (got < wanted && timer.elapsed() < 60000) {
                got += engine.stream().drain().steps.size();
                if (got < wanted) QThread::msleep(5);
            }
            return got;
        };
        engine.stepOnce();
        QCOMPARE(stepsArrived(1), size_t{1});
        engine.mapNextStep();
        engine.stepOnce();
        QCOMPARE(stepsArrived(1), size_t{1});
        engine.resume();
        engine.wait();
        const RunData asked = readRunDirectory(dir);
        const auto maps = test::recordsOf(asked, "precision_map");
        QCOMPARE(maps.size(), size_t{1});
        QCOMPARE(maps.front().value("step", int64_t{0}), int64_t{2});
        const auto askedLosses = test::stepLosses(asked), plainLosses = test::stepLosses(plain);
        QCOMPARE(askedLosses.size(), size_t{4});
        QCOMPARE(plainLosses.size(), askedLosses.size());
        for (size_t k = 0; k < askedLosses.size(); ++k) QCOMPARE_BITS(askedLosses[k], plainLosses[k]);
    }

    // The format modes: errors in units of the element format's spacing, the unit
    // roundoff of e4m3 (2^-4), e5m2 (2^-3) and e2m1 (2^-2), forward and for the gradients;
    // the matmul ops add error, the ReLUs none.
    void formatModesAreMapped_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("bits");
        QTest::addColumn<QString>("gradientFormat");
        QTest::addColumn<int>("gradientBits");
        // The gradient's format (dY): the formats document's table of the modes.
        QTest::newRow("fp8") << "fp8" << "e4m3" << 4 << "e5m2" << 3;
        QTest::newRow("mxfp8") << "mxfp8" << "e4m3" << 4 << "e5m2" << 3;
        QTest::newRow("mxfp4") << "mxfp4" << "e2m1" << 2 << "e2m1" << 2;
        QTest::newRow("nvfp4") << "nvfp4" << "e2m1" << 2 << "e2m1" << 2;
    }
    void formatModesAreMapped() {
        QFETCH(QString, mode);
        QFETCH(QString, format);
        QFETCH(int, bits);
        QFETCH(QString, gradientFormat);
        QFETCH(int, gradientBits);
        RunConfig config = test::spiralsMlp(mode.toStdString());
        const DataBundle data = loadData(config.data, 0);
        const auto map = mapOneStep(config, data, 32);
        QCOMPARE(QString::fromStdString(map.formatForward), format);
        QCOMPARE(map.bitsForward, bits);
        QCOMPARE_BITS(map.unitRoundoff("forward"), std::ldexp(1.0, -bits));
        QCOMPARE(QString::fromStdString(map.formatBackward), gradientFormat);
        QCOMPARE(map.bitsBackward, gradientBits);
        QCOMPARE_BITS(map.unitRoundoff("backward"), std::ldexp(1.0, -gradientBits));
        const auto* linear = findOp(map, "aten::linear");
        QVERIFY(linear);
        QVERIFY2(linear->addedError > 0.0, qPrintable(describe(*linear)));
        const auto* relu = findOp(map, "aten::relu");
        QVERIFY(relu);
        QCOMPARE_BITS(relu->addedError, 0.0);
    }

    // fp64 as the reference: an fp32 run's own rounding shows, at fp32's scale.
    void fp64Reference() {
        RunConfig config = test::spiralsMlp("fp32");
        const DataBundle data = loadData(config.data, 0);
        torch::manual_seed(5);
        Trainer trainer(config, data, torch::kCPU);
        MapStep map(trainer, "fp64");
        const auto record = map.step(data.train.inputs.slice(0, 0, 32), data.train.targets.slice(0, 0, 32));
        const auto* linear = findOp(record, "aten::linear");
        QVERIFY(linear);
        QVERIFY2(linear->relError > 0.0 && linear->relError < 1e-5, qPrintable(describe(*linear)));
        QVERIFY2(linear->addedError > 0.0 && linear->addedError < 1e-5, qPrintable(describe(*linear)));
        QCOMPARE(record.reference, std::string("fp64"));
    }
};

QTEST_GUILESS_MAIN(PrecisionMapTest)
#include "test_precision_map.moc"
