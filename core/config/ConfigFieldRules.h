#pragma once
// The one definition of each config field's numeric limits and its one-line help.
// Validation (ConfigValidation.cpp) checks each field against its limits and words the
// message from them ("must be in [1, 100000] (got 0)"); the window's Configure form
// takes its widgets' ranges and tooltips from the same entries ("train.epochs: passes
// over the training set (in [1, 100000])"), so a limit changed here shows in both.
//
// Paths are config.json's; a rule for a list ("model.hidden", "faults.step") applies to
// each element, whose messages name it as "model.hidden[2]", "faults[0].step".
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

// Hidden sizes, channels, kernels and batch sizes stop here: past it a layer or a batch
// would not fit the machines AmpScope runs on.
inline constexpr long long kMaxConfigWidth = 65536;

enum class LimitBound { Open, Closed };

// A range of allowed numbers; a side without a limit is infinite. Integer limits are
// written as integers ("[1, 65536]"), real ones in their shortest exact form.
struct NumberLimits {
    bool integer = true;
    double low = -std::numeric_limits<double>::infinity();
    LimitBound lowBound = LimitBound::Closed;
    double high = std::numeric_limits<double>::infinity();
    LimitBound highBound = LimitBound::Closed;

    bool contains(double value) const;
    // What the value must be: "in [1, 100000]", "in (0, 10]", "> 1", ">= 0".
    std::string text() const;
};

struct ConfigFieldRule {
    std::string_view path;  // "train.epochs"
    std::string_view help;  // one line: what the field means, without its limits
    std::optional<NumberLimits> limits;
};

// Every rule, in RunConfig's order.
const std::vector<ConfigFieldRule>& configFieldRules();
// The rule of a path; std::out_of_range naming it when there is none (a program error).
const ConfigFieldRule& configFieldRule(std::string_view path);
// "path: help (limits)", the text the form shows as the field's tooltip.
std::string configFieldHelp(std::string_view path);

}  // namespace ampscope
