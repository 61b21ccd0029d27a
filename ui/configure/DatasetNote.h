#pragma once
// What the Configure form's dataset row says about the data the config names: a file or
// directory that is not there, a directory without IDX files, or FashionMNIST not
// installed where the engine looks for it by default (and what to do about it).
#include <QString>

#include "config/RunConfig.h"

namespace ampscope::ui {

// Empty when there is nothing to say. fashionMnistDirectory: where the engine looks
// when data.path is empty.
QString datasetNote(const RunConfig& config, const QString& fashionMnistDirectory);

}  // namespace ampscope::ui
