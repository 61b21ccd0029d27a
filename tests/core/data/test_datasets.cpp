// loadData (MNIST-format directories, synthetic sets) and BatchIterator. The image
// sets are tiny fake MNIST directories written at runtime; the real FashionMNIST is
// loaded only when Debian's dataset-fashion-mnist package is installed.
#include <torch/torch.h>
#include <zlib.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "ExactCompare.h"
#include "DataLoadSupport.h"
#include "common/InputError.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "data/SyntheticData.h"

using namespace ampscope;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes idxBytes(const std::vector<uint32_t>& dims, const Bytes& payload) {
    Bytes out = {0, 0, 0x08, uint8_t(dims.size())};
    for (uint32_t dim : dims)
        for (int shift = 24; shift >= 0; shift -= 8) out.push_back(uint8_t(dim >> shift));
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

void writeFile(const std::string& path, const Bytes& bytes, bool gzip) {
    if (gzip) {
        gzFile file = gzopen(path.c_str(), "wb1");
        gzwrite(file, bytes.data(), unsigned(bytes.size()));
        gzclose(file);
    } else {
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        file.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
}

// Image i of a fake set: a deterministic pattern whose brightness depends on i, so
// that pixel statistics are non-trivial and images are distinguishable.
Bytes fakeImages(int64_t count, int64_t rows, int64_t cols, int salt) {
    Bytes out(size_t(count * rows * cols));
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t((i * 37 + salt * 11) % 256);
    return out;
}

Bytes fakeLabels(int64_t count) {
    Bytes out(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) out[size_t(i)] = uint8_t(i % 10);
    return out;
}

struct FakeMnist {
    int64_t train = 20;
    int64_t test = 10;
    int64_t trainLabels = -1;  // -1: same as train
    int badLabelIndex = -1;    // >= 0: that train label becomes 12
    bool gzip = true;
    bool writeTest = true;
};

void writeFakeMnist(const std::string& dir, const FakeMnist& spec) {
    std::filesystem::create_directories(dir);
    const std::string suffix = spec.gzip ? ".gz" : "";
    Bytes labels = fakeLabels(spec.trainLabels < 0 ? spec.train : spec.trainLabels);
    if (spec.badLabelIndex >= 0) labels[size_t(spec.badLabelIndex)] = 12;
    writeFile(dir + "/train-images-idx3-ubyte" + suffix,
              idxBytes({uint32_t(spec.train), 28, 28}, fakeImages(spec.train, 28, 28, 1)),
              spec.gzip);
    writeFile(dir + "/train-labels-idx1-ubyte" + suffix,
              idxBytes({uint32_t(labels.size())}, labels), spec.gzip);
    if (!spec.writeTest) return;
    writeFile(dir + "/t10k-images-idx3-ubyte" + suffix,
              idxBytes({uint32_t(spec.test), 28, 28}, fakeImages(spec.test, 28, 28, 2)), spec.gzip);
    writeFile(dir + "/t10k-labels-idx1-ubyte" + suffix,
              idxBytes({uint32_t(spec.test)}, fakeLabels(spec.test)), spec.gzip);
}

DataConfig mnistConfig(const std::string& dir) {
    DataConfig config;
    config.dataset = "mnist_idx";
    config.path = dir;
    return config;
}

using ampscope::test::loadError;

// Population statistics, as the normalisation uses them.
double meanOf(const torch::Tensor& t) {
    return t.to(torch::kFloat64).mean().item<double>();
}
double stdOf(const torch::Tensor& t) {
    return t.to(torch::kFloat64).var(/*unbiased=*/false).sqrt().item<double>();
}

std::vector<int64_t> toVector(const torch::Tensor& t) {
    const torch::Tensor c = t.to(torch::kInt64).contiguous();
    return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Every order an iterator gives over an epoch, as the sample ids it handed out.
std::vector<int64_t> epochOrder(BatchIterator& batches, int64_t epoch) {
    batches.startEpoch(epoch);
    std::vector<int64_t> order;
    torch::Tensor inputs, targets;
    while (batches.next(inputs, targets)) {
        const std::vector<int64_t> ids = toVector(targets);
        order.insert(order.end(), ids.begin(), ids.end());
    }
    return order;
}

}  // namespace

class TestDatasets : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::string sub(const char* name) const { return dir_.filePath(name).toStdString(); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        writeFakeMnist(sub("mnist"), {});
    }

    void loadsMnistDirectory() {
        const DataBundle data = loadData(mnistConfig(sub("mnist")), 0);
        QCOMPARE(data.train.inputs.sizes().vec(), (std::vector<int64_t>{20, 1, 28, 28}));
        QCOMPARE(data.val.inputs.sizes().vec(), (std::vector<int64_t>{10, 1, 28, 28}));
        QCOMPARE(data.train.inputs.scalar_type(), torch::kFloat32);
        QCOMPARE(data.train.targets.scalar_type(), torch::kInt64);
        QCOMPARE(data.train.targets.sizes().vec(), (std::vector<int64_t>{20}));
        QVERIFY(data.train.inputs.is_contiguous() && data.val.inputs.is_contiguous());
        QCOMPARE(data.train.size(), int64_t(20));
        QCOMPARE(data.task, std::string("classification"));
        QCOMPARE(data.num_classes, int64_t(10));
        QCOMPARE(data.input_shape, (std::vector<int64_t>{1, 28, 28}));
        QVERIFY(!data.synthetic);
        // Normalised with the training statistics: train mean 0, std 1.
        QVERIFY(std::abs(meanOf(data.train.inputs)) < 1e-5);
        QVERIFY(std::abs(stdOf(data.train.inputs) - 1.0) < 1e-5);
        // With "test" validation and no subset the files' order is kept.
        QCOMPARE(toVector(data.train.targets), toVector(torch::arange(20) % 10));
        const QString description = QString::fromStdString(data.description);
        QVERIFY2(
            description.contains("train 20 / test 10 from " + QString::fromStdString(sub("mnist"))),
            qPrintable(description));
        QVERIFY2(description.contains("mean") && description.contains("std"),
                 qPrintable(description));
        QVERIFY2(!description.contains('\n'), qPrintable(description));
    }

    void keepsPlainPixelsWithoutNormalize() {
        DataConfig config = mnistConfig(sub("mnist"));
        config.normalize = false;
        const DataBundle data = loadData(config, 0);
        const Bytes pixels = fakeImages(20, 28, 28, 1);
        const torch::Tensor expected =
            torch::tensor(std::vector<int64_t>(pixels.begin(), pixels.end()))
                .to(torch::kFloat32)
                .div(255)
                .reshape({20, 1, 28, 28});
        QVERIFY(torch::allclose(data.train.inputs, expected, 0, 1e-7));
        QVERIFY(data.val.inputs.min().item<float>() >= 0.0f);
        QVERIFY(data.val.inputs.max().item<float>() <= 1.0f);
    }

    void readsRawFilesAndPrefersGzip() {
        writeFakeMnist(sub("raw"), {.gzip = false});
        QCOMPARE(loadData(mnistConfig(sub("raw")), 0).train.size(), int64_t(20));
        // Both present: the .gz wins (here the raw ones are broken to tell them apart).
        writeFakeMnist(sub("both"), {.train = 30});
        writeFakeMnist(sub("both"), {.train = 5, .trainLabels = 4, .gzip = false});
        QCOMPARE(loadData(mnistConfig(sub("both")), 0).train.size(), int64_t(30));
    }

    void rejectsLabelCountMismatch() {
        writeFakeMnist(sub("mismatch"), {.trainLabels = 19});
        const QString message = loadError(mnistConfig(sub("mismatch")));
        QVERIFY2(message.startsWith(QString::fromStdString(sub("mismatch"))) &&
                     message.contains("train-labels-idx1-ubyte.gz: labels count 19 != images "
                                      "count 20"),
                 qPrintable(message));
    }

    void rejectsLabelOutOfRange() {
        writeFakeMnist(sub("badlabel"), {.badLabelIndex = 5});
        const QString message = loadError(mnistConfig(sub("badlabel")));
        QVERIFY2(message.contains("train-labels-idx1-ubyte.gz: label 12 at index 5 out of "
                                  "range 0..9"),
                 qPrintable(message));
    }

    void rejectsImagesThatAreNot3D() {
        std::filesystem::create_directories(sub("flat"));
        writeFile(sub("flat") + "/train-images-idx3-ubyte", idxBytes({20, 784}, Bytes(20 * 784)),
                  false);
        writeFile(sub("flat") + "/train-labels-idx1-ubyte", idxBytes({20}, fakeLabels(20)), false);
        const QString message = loadError(mnistConfig(sub("flat")));
        QVERIFY2(message.contains("train-images-idx3-ubyte: expected 3 dimensions"),
                 qPrintable(message));
    }

    void rejectsMissingDirectoryAndFiles() {
        QString message = loadError(mnistConfig(sub("nowhere")));
        QVERIFY2(message.startsWith(QString::fromStdString(sub("nowhere"))) &&
                     message.contains("directory not found"),
                 qPrintable(message));

        writeFakeMnist(sub("notest"), {.writeTest = false});
        message = loadError(mnistConfig(sub("notest")));
        QVERIFY2(message.contains(QString::fromStdString(sub("notest")) +
                                  "/t10k-images-idx3-ubyte[.gz]: not found"),
                 qPrintable(message));
        // "split" validation does not use the test files, so it does not need them.
        DataConfig split = mnistConfig(sub("notest"));
        split.validation = "split";
        QCOMPARE(loadData(split, 0).val.size(), int64_t(2));

        DataConfig noPath = mnistConfig("");
        message = loadError(noPath);
        QVERIFY2(message.startsWith("data.path: required"), qPrintable(message));
    }

    void defaultLocationMissingSaysWhatToInstall() {
        if (std::filesystem::exists(kDefaultFashionMnistDir))
            QSKIP("dataset-fashion-mnist is installed");
        const QString message = loadError(DataConfig{});
        QVERIFY2(message.contains(kDefaultFashionMnistDir) &&
                     message.contains("install the dataset-fashion-mnist package or set "
                                      "data.path"),
                 qPrintable(message));
    }

    void rejectsBadValues() {
        DataConfig config = mnistConfig(sub("mnist"));
        config.dataset = "cifar";
        QVERIFY(loadError(config).startsWith("data.dataset: "));
        config = mnistConfig(sub("mnist"));
        config.validation = "kfold";
        QVERIFY(loadError(config).startsWith("data.validation: "));
        config.validation = "split";
        config.val_fraction = 1.5;
        QVERIFY(loadError(config).startsWith("data.val_fraction: "));
        config.val_fraction = 0.01;  // rounds to 0 of 20 samples
        QVERIFY2(loadError(config).startsWith("data.val_fraction: "),
                 qPrintable(loadError(config)));
        config = mnistConfig(sub("mnist"));
        config.subset = -3;
        QVERIFY(loadError(config).startsWith("data.subset: "));
    }

    void splitHoldsOutAFractionOfTrain() {
        DataConfig config = mnistConfig(sub("mnist"));
        config.validation = "split";
        config.val_fraction = 0.25;
        const DataBundle data = loadData(config, 7);
        QCOMPARE(data.train.size(), int64_t(15));
        QCOMPARE(data.val.size(), int64_t(5));
        // Train and val partition the training file: the labels together are 0..9 twice.
        std::vector<int64_t> all = toVector(data.train.targets);
        const std::vector<int64_t> val = toVector(data.val.targets);
        all.insert(all.end(), val.begin(), val.end());
        std::sort(all.begin(), all.end());
        std::vector<int64_t> expected = toVector(torch::arange(20) % 10);
        std::sort(expected.begin(), expected.end());
        QCOMPARE(all, expected);
        // Normalised with the 15 training images only.
        QVERIFY(std::abs(meanOf(data.train.inputs)) < 1e-5);
        QVERIFY(QString::fromStdString(data.description).contains("val 5 (split 0.25"));

        const DataBundle again = loadData(config, 7);
        QVERIFY(torch::equal(again.val.inputs, data.val.inputs));
        const DataBundle other = loadData(config, 8);
        QVERIFY(!torch::equal(other.val.inputs, data.val.inputs));
    }

    void subsetKeepsSeededTrainSamples() {
        DataConfig config = mnistConfig(sub("mnist"));
        config.subset = 7;
        const DataBundle data = loadData(config, 3);
        QCOMPARE(data.train.size(), int64_t(7));
        QCOMPARE(data.val.size(), int64_t(10));
        QVERIFY(std::abs(meanOf(data.train.inputs)) < 1e-5);
        QVERIFY(QString::fromStdString(data.description).contains("train 7 (subset of 20)"));
        QVERIFY(torch::equal(loadData(config, 3).train.inputs, data.train.inputs));
        QVERIFY(!torch::equal(loadData(config, 4).train.targets, data.train.targets));
        // A subset at least as large as the set keeps everything.
        config.subset = 50;
        QCOMPARE(loadData(config, 3).train.size(), int64_t(20));
    }

    void spiralsAreSeededThreeClassPoints() {
        DataConfig config;
        config.dataset = "spirals";
        config.synthetic_samples = 300;
        const DataBundle data = loadData(config, 1);
        // validation "test" on a synthetic set: 20% held out.
        QCOMPARE(data.train.inputs.sizes().vec(), (std::vector<int64_t>{240, 2}));
        QCOMPARE(data.val.inputs.sizes().vec(), (std::vector<int64_t>{60, 2}));
        QCOMPARE(data.train.inputs.scalar_type(), torch::kFloat32);
        QCOMPARE(data.train.targets.scalar_type(), torch::kInt64);
        QCOMPARE(data.num_classes, int64_t(3));
        QCOMPARE(data.input_shape, (std::vector<int64_t>{2}));
        QCOMPARE(data.task, std::string("classification"));
        QVERIFY(data.synthetic);
        const torch::Tensor all = torch::cat({data.train.targets, data.val.targets});
        QCOMPARE(toVector(torch::bincount(all)), (std::vector<int64_t>{100, 100, 100}));
        // Radius t in (0, 1) plus no radial noise: every point inside the unit circle.
        QVERIFY(data.train.inputs.norm(2, 1).max().item<float>() < 1.0f);

        const DataBundle same = loadData(config, 1);
        QVERIFY(torch::equal(same.train.inputs, data.train.inputs));
        QVERIFY(torch::equal(same.val.targets, data.val.targets));
        const DataBundle other = loadData(config, 2);
        QVERIFY(!torch::equal(other.train.inputs, data.train.inputs));

        config.validation = "split";
        config.val_fraction = 0.1;
        QCOMPARE(loadData(config, 1).val.size(), int64_t(30));
    }

    void syntheticDataLeavesTheGlobalGeneratorAlone() {
        torch::manual_seed(99);
        const torch::Tensor expected = torch::rand({4});
        torch::manual_seed(99);
        DataConfig config;
        config.dataset = "tiny_gradients";
        loadData(config, 5);
        QVERIFY(torch::equal(torch::rand({4}), expected));
    }

    void tinyGradientsHaveFp16UnderflowMagnitudes() {
        DataConfig config;
        config.dataset = "tiny_gradients";
        const DataBundle data = loadData(config, 0);  // 4096 samples by default
        QCOMPARE(data.train.inputs.sizes().vec(), (std::vector<int64_t>{3277, 32}));
        QCOMPARE(data.train.targets.sizes().vec(), (std::vector<int64_t>{3277, 1}));
        QCOMPARE(data.val.targets.sizes().vec(), (std::vector<int64_t>{819, 1}));
        QCOMPARE(data.train.targets.scalar_type(), torch::kFloat32);
        QCOMPARE(data.task, std::string("regression"));
        QCOMPARE(data.num_classes, int64_t(0));
        QCOMPARE(data.input_shape, (std::vector<int64_t>{32}));
        // median |N(0, 1)| = 0.6745, so median |x| = 0.6745 * 2^kTinyGradientInputExponent.
        const double medianAbs = data.train.inputs.abs().median().item<double>();
        QVERIFY2(std::abs(medianAbs / std::ldexp(0.6745, kTinyGradientInputExponent) - 1.0) < 0.05,
                 qPrintable(QString::number(medianAbs)));

        // Near the teacher the residual is the target noise, and the MSE weight gradient
        // of a 128-sample batch rounds to zero in fp16 (and already does at W = 0, below).
        const torch::Tensor x = data.train.inputs.to(torch::kFloat64);
        const torch::Tensor y = data.train.targets.to(torch::kFloat64);
        const torch::Tensor teacher = std::get<0>(at::linalg_lstsq(x, y));
        const torch::Tensor residual = (x.matmul(teacher) - y).narrow(0, 0, 128);
        QVERIFY2(std::abs(stdOf(residual) / std::ldexp(1.0, kTinyGradientNoiseExponent) - 1.0) < 0.2,
                 qPrintable(QString::number(stdOf(residual))));
        const torch::Tensor gradient =
            (2.0 / 128) * x.narrow(0, 0, 128).t().matmul(residual).to(torch::kFloat32);
        const double zeroInHalf =
            (gradient.to(torch::kFloat16) == 0).to(torch::kFloat64).mean().item<double>();
        QVERIFY2(zeroInHalf > 0.5, qPrintable(QString::number(zeroInHalf)));
        QVERIFY((gradient == 0).sum().item<int64_t>() == 0);  // fp32 keeps them all
        // At W = 0 the residual is the whole target: still mostly zero in fp16.
        const torch::Tensor startGradient =
            (-2.0 / 128) * x.narrow(0, 0, 128).t().matmul(y.narrow(0, 0, 128)).to(torch::kFloat32);
        const double zeroAtStart =
            (startGradient.to(torch::kFloat16) == 0).to(torch::kFloat64).mean().item<double>();
        QVERIFY2(zeroAtStart > 0.9, qPrintable(QString::number(zeroAtStart)));

        const DataBundle same = loadData(config, 0);
        QVERIFY(torch::equal(same.train.targets, data.train.targets));
        QVERIFY(QString::fromStdString(data.description)
                    .contains(QString("2^%1").arg(kTinyGradientInputExponent)));
    }

    void batchesCoverEverySampleOncePerEpoch() {
        const TensorDataset data{torch::arange(103, torch::kFloat32).reshape({103, 1}),
                                 torch::arange(103, torch::kInt64)};
        BatchIterator batches(data, 10, /*shuffle=*/true, 42);
        QCOMPARE(batches.batchesPerEpoch(), int64_t(11));
        std::vector<int64_t> sizes;
        std::vector<int64_t> seen;
        torch::Tensor inputs, targets;
        while (batches.next(inputs, targets)) {
            QVERIFY(inputs.is_contiguous() && targets.is_contiguous());
            // Inputs and targets stay paired.
            QCOMPARE(toVector(inputs.squeeze(1)), toVector(targets));
            sizes.push_back(targets.size(0));
            const std::vector<int64_t> ids = toVector(targets);
            seen.insert(seen.end(), ids.begin(), ids.end());
        }
        QCOMPARE(sizes.size(), size_t(11));
        QCOMPARE(sizes.back(), int64_t(3));  // the last, partial batch is kept
        QCOMPARE(batches.position(), int64_t(103));
        QCOMPARE(batches.batchIndex(), int64_t(11));
        QVERIFY(!batches.next(inputs, targets));
        std::vector<int64_t> sorted = seen;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted, toVector(torch::arange(103)));
        QVERIFY(seen != sorted);  // shuffled

        // Same seed, same batches; another epoch or seed, another order.
        BatchIterator twin(data, 10, true, 42);
        QCOMPARE(epochOrder(twin, 0), seen);
        QCOMPARE(epochOrder(batches, 0), seen);
        const std::vector<int64_t> epoch1 = epochOrder(batches, 1);
        QVERIFY(epoch1 != seen);
        QCOMPARE(epochOrder(twin, 1), epoch1);
        BatchIterator other(data, 10, true, 43);
        QVERIFY(epochOrder(other, 0) != seen);
    }

    void unshuffledBatchesKeepTheOrder() {
        const TensorDataset data{torch::randn({25, 3}), torch::arange(25, torch::kInt64)};
        BatchIterator batches(data, 8, /*shuffle=*/false, 0);
        QCOMPARE(batches.batchesPerEpoch(), int64_t(4));
        QCOMPARE(epochOrder(batches, 0), toVector(torch::arange(25)));
        QCOMPARE(epochOrder(batches, 3), toVector(torch::arange(25)));
        BatchIterator whole(data, 1000, true, 0);
        QCOMPARE(whole.batchesPerEpoch(), int64_t(1));
        torch::Tensor inputs, targets;
        QVERIFY(whole.next(inputs, targets));
        QCOMPARE(inputs.size(0), int64_t(25));
        QVERIFY(!whole.next(inputs, targets));
    }

    void loadsInstalledFashionMnist() {
        if (!std::filesystem::exists(kDefaultFashionMnistDir))
            QSKIP("dataset-fashion-mnist is not installed");
        QElapsedTimer timer;
        timer.start();
        const DataBundle data = loadData(DataConfig{}, 0);
        qInfo("FashionMNIST loaded in %lld ms: %s", static_cast<long long>(timer.elapsed()),
              data.description.c_str());
        QCOMPARE(data.train.inputs.sizes().vec(), (std::vector<int64_t>{60000, 1, 28, 28}));
        QCOMPARE(data.val.inputs.sizes().vec(), (std::vector<int64_t>{10000, 1, 28, 28}));
        QCOMPARE(data.num_classes, int64_t(10));
        QCOMPARE(toVector(torch::bincount(data.train.targets)), std::vector<int64_t>(10, 6000));
        QVERIFY(std::abs(meanOf(data.train.inputs)) < 1e-4);
        QVERIFY(std::abs(stdOf(data.train.inputs) - 1.0) < 1e-4);
        QVERIFY(QString::fromStdString(data.description)
                    .startsWith("FashionMNIST train 60000 / test 10000 from "));
    }
};

QTEST_APPLESS_MAIN(TestDatasets)
#include "test_datasets.moc"
