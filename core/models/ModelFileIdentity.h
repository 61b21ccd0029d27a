#pragma once
// Which file a user's model was: its absolute path, size and SHA-256, written into the
// run's config.json before anything is loaded, so a report and a rerun name exactly
// that file. Plain C++ (no torch).
#include "config/RunConfig.h"

namespace ampscope {

// For model.name "torchscript": makes model.path absolute and fills file_bytes and
// sha256. A sha256 already in the config (a rerun from a run's config.json) must match
// the file: otherwise an InputError says the file changed.
void identifyModelFile(ModelConfig& model);

}  // namespace ampscope
