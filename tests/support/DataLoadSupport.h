#pragma once
// For the data suites: what loading a data config says when it fails.
#include <QtCore/QString>

#include "common/InputError.h"
#include "data/Dataset.h"

namespace ampscope::test {

// The InputError's text; empty when the data loads; any other exception is named
// as not being an InputError, so a row expecting a message fails on it.
inline QString loadError(const DataConfig& config) {
    try {
        loadData(config, 0);
    } catch (const InputError& error) {
        return QString::fromStdString(error.what());
    } catch (const std::exception& error) {
        return QStringLiteral("NOT AN InputError: ") + QString::fromStdString(error.what());
    }
    return {};
}

// Random images and labels in FashionMNIST's shape (1x28x28, 10 classes): for suites
// where the numbers do not matter, only that two models see the same ones.
inline DataBundle randomImageData(int64_t samples, uint64_t seed, int64_t valSamples) {
    torch::manual_seed(seed);
    DataBundle data;
    data.train.inputs = torch::randn({samples, 1, 28, 28});
    data.train.targets = torch::randint(0, 10, {samples}, torch::kLong);
    data.val.inputs = torch::randn({valSamples, 1, 28, 28});
    data.val.targets = torch::randint(0, 10, {valSamples}, torch::kLong);
    data.task = "classification";
    data.num_classes = 10;
    data.input_shape = {1, 28, 28};
    data.description = "random images";
    return data;
}

}  // namespace ampscope::test
