#pragma once
// RunConfig <-> JSON (config.json, schema_version 1) and command-line overrides.
//
// Contract:
// - configFromJson is strict: an unknown key anywhere is an InputError naming its
//   full path ("optim.lrr: unknown key (allowed: name, lr, ...)"); a wrong type
//   names the path and the expected type ("train.batch_size: expected an integer
//   (got "abc")"); missing keys keep RunConfig defaults. A number that equals an
//   integer (2.0, 1e3) is accepted where an integer is expected; 2.5 is not.
// - schema_version is checked first: missing means 1; a newer one fails with
//   "schema_version: 2 is newer than this AmpScope understands (1)".
// - After parsing, the result is validated (ConfigValidation.h); the first
//   problem is thrown as InputError "path: message".
// - configToJson writes every field, so a saved config is complete and resolved.
//   Lists: model.blocks as [[in, out, kernel, stride, pad], ...], faults as
//   [{"step", "kind", "layer", "factor"}, ...].
// - loadConfigDocument names the file: "FILE: cannot open (No such file or
//   directory)", "FILE: not valid JSON (line 3, column 7: ...)" (lines and columns
//   from 1, columns in characters). loadConfigFile also prefixes configFromJson's
//   errors with "FILE: ".
// - saveConfigFile writes 2-space indented JSON in RunConfig's field order with a
//   trailing newline, through a temporary file renamed over the target.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "config/RunConfig.h"

namespace ampscope {

nlohmann::json configToJson(const RunConfig& config);
// The same document with keys in RunConfig's order, for files people read.
nlohmann::ordered_json configToOrderedJson(const RunConfig& config);
RunConfig configFromJson(const nlohmann::json& document);

RunConfig loadConfigFile(const std::string& path);
// Parsed, not yet validated; the files it names (model.path, data.path), when relative,
// already made relative to the config file's folder, so a folder holding a config and
// its model can be moved or shared. Overrides applied after it stay as given.
nlohmann::json loadConfigDocument(const std::string& path);
void saveConfigFile(const RunConfig& config, const std::string& path);

// Applies "key.path=value" to a config document (before configFromJson). The
// path must name an existing key of the full config (defaults included); the
// value is parsed as JSON when it parses (numbers, true/false, arrays) and taken
// as a string otherwise. Array elements are addressed by index: faults.0.step.
// Where the key holds a string, the value is always that string ("name=2024"),
// unless written as a JSON string literal. Errors read "--set ASSIGNMENT: ..."
// ("no such key 'optim.lrr'", "missing '='"). Types and ranges are left to
// configFromJson, so an override is held to the same rules as the file.
void applyOverride(nlohmann::json& document, const std::string& assignment);

}  // namespace ampscope
