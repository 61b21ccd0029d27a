#pragma once
// Field-precise validation of a RunConfig. Every problem names the JSON path of
// the field, what is allowed and what was given, so that the CLI can print it
// as its one line and the window can show it at the field.
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
const std::vector<std::string>& allowedOptimizers();
const std::vector<std::string>& allowedFaultKinds();

}  // namespace ampscope
