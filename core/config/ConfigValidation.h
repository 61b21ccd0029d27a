#pragma once
// Field-precise validation of a RunConfig. Every problem names the JSON path of
// the field, what is allowed and what was given, so that the CLI can print it
// as its one line and the window can show it at the field.
//
// Contract:
// - validateConfig returns every problem, in the order of RunConfig's fields; an
//   empty list means the engine may be started with the config.
// - Paths are those of config.json, with list elements as "faults[0].kind",
//   "model.hidden[2]", "model.blocks[1]".
// - Every double must be finite ("must be a finite number (got inf)"), since JSON
//   cannot hold inf or nan and a saved config must load again.
// - Checks that need more than the config (does data.path hold IDX files, does a
//   keep_fp32 layer exist in the model) belong to the data loader and the engine.
#include <cstdint>
#include <string>
#include <vector>

#include "config/RunConfig.h"

namespace ampscope {

struct FieldProblem {
    std::string field;    // JSON path, e.g. "precision.scaler.growth_factor"
    std::string message;  // e.g. "must be > 1 (got 1)"
    std::string text() const { return field + ": " + message; }
};

std::vector<FieldProblem> validateConfig(const RunConfig& config);
void throwIfInvalid(const RunConfig& config);  // InputError with the first problem

// Allowed values, shared with the UI's pickers.
const std::vector<std::string>& allowedDatasets();
const std::vector<std::string>& allowedModels();
const std::vector<std::string>& allowedModes();
const std::vector<std::string>& allowedScalerKinds();
const std::vector<std::string>& allowedFp8Formats();      // precision.fp8.format
const std::vector<std::string>& allowedFp8Recipes();      // precision.fp8.recipe
const std::vector<std::string>& allowedAmaxComputes();    // precision.fp8.amax_compute
const std::vector<std::string>& allowedMxScaleRules();    // precision.mx.scale_rule
const std::vector<std::string>& allowedEmulation();  // precision.emulate
const std::vector<std::string>& allowedOptimizers();
const std::vector<std::string>& allowedFaultKinds();
const std::vector<std::string>& allowedLocateModes();
const std::vector<std::string>& allowedMapReferences();  // probes.precision_map_reference
const std::vector<std::string>& allowedDevices();
const std::vector<std::string>& allowedValidationModes();  // data.validation
const std::vector<std::string>& allowedActivations();
const std::vector<std::string>& allowedNorms();
const std::vector<std::string>& allowedLosses();  // train.loss
const std::vector<int64_t>& allowedPatchSizes();  // transformer patch: divisors of 28

}  // namespace ampscope
