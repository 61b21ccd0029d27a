#pragma once
// Walks a command line's options for both programs' parsers (CliArguments.h for
// ampscope-cli, WindowArguments.h for ampscope), so that they read options the same way:
// "--name VALUE" and "--name=VALUE" both work, short aliases ("-o") take the separate
// form, and a missing value is one InputError line: "<prefix>--name: missing value".
// A value that starts with "--" counts as missing: it is the next option, not a value.
#include <initializer_list>
#include <string>
#include <vector>

namespace ampscope::app {

class OptionReader {
public:
    // Reads args[first...]; `messagePrefix` starts every error ("report: ", or "").
    OptionReader(const std::vector<std::string>& args, size_t first, std::string messagePrefix = "");

    bool atEnd() const { return index_ >= args_.size(); }
    const std::string& argument() const { return args_[index_]; }
    // Past the current argument (takeValue already stepped over a separate value).
    void advance() { ++index_; }

    // The current argument is one of `names` (the first is the one messages name).
    bool isFlag(std::initializer_list<const char*> names) const;
    // The current argument is one of `names` with a value: stores it and returns true.
    // Throws InputError when the value is missing.
    bool takeValue(std::initializer_list<const char*> names, std::string& value);

private:
    const std::vector<std::string>& args_;
    size_t index_;
    std::string messagePrefix_;
};

}  // namespace ampscope::app
