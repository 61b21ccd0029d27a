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

}  // namespace ampscope::test
