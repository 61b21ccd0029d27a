#pragma once
// Plain (no torch). The model_modules record: written after run_info by a run of a
// user's TorchScript model, so whoever opens the run sees the module tree (and which
// modules were probed) without loading the model file: opening a run reads records,
// never a model.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/ScriptModuleInfo.h"

namespace ampscope {

struct ModelModulesRecord {
    std::string path;    // the file, absolute
    std::string sha256;  // of the file, as config.json's model.sha256
    std::vector<ScriptModuleInfo> modules;  // pre-order, [0] = the model itself
};

nlohmann::json toJson(const ModelModulesRecord& record);
// Lenient: nullopt for a record that cannot be read (a viewer skips it).
std::optional<ModelModulesRecord> modelModulesFromJson(const nlohmann::json& record);
// The keys of the model_modules record, {type: keys} (run/RecordKeys.h).
nlohmann::json modelModulesRecordKeys();

}  // namespace ampscope
