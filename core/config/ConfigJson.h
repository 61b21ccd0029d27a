#pragma once
// RunConfig <-> JSON (config.json, schema_version 1) and command-line overrides.
//
// Contract:
// - configFromJson is strict: an unknown key anywhere is an InputError naming its
//   full path ("optim.lrr: unknown key (allowed: name, lr, ...)"); a wrong type
//   names the path and the expected type; missing keys keep RunConfig defaults.
// - After parsing, the result is validated (ConfigValidation.h); the first
//   problem is thrown as InputError "path: message".
// - configToJson writes every field, so a saved config is complete and resolved.
// - loadConfigFile names the file and, for a JSON syntax error, the line/column.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "config/RunConfig.h"

namespace ampscope {

nlohmann::json configToJson(const RunConfig& config);
RunConfig configFromJson(const nlohmann::json& document);

RunConfig loadConfigFile(const std::string& path);
nlohmann::json loadConfigDocument(const std::string& path);  // parsed, not yet validated
void saveConfigFile(const RunConfig& config, const std::string& path);

// Applies "key.path=value" to a config document (before configFromJson). The
// path must name an existing key of the full config (defaults included); the
// value is parsed as JSON when it parses (numbers, true/false, arrays) and taken
// as a string otherwise. Array elements are addressed by index: faults.0.step.
void applyOverride(nlohmann::json& document, const std::string& assignment);

}  // namespace ampscope
