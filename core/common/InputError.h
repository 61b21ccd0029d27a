#pragma once
// Errors that users cause: a bad config field, a bad data file, a bad run
// directory, a bad CLI argument. The CLI maps them to exit code 2 and prints
// what() as its one line, so what() must name the field or file and say what
// is wrong, e.g. "optim.lr: must be > 0 (got -1)".
#include <stdexcept>
#include <string>

namespace ampscope {

class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace ampscope
