#include "OptionReader.h"

#include <utility>

#include "common/InputError.h"

namespace ampscope::app {

OptionReader::OptionReader(const std::vector<std::string>& args, size_t first, std::string messagePrefix)
    : args_(args), index_(first), messagePrefix_(std::move(messagePrefix)) {}

bool OptionReader::isFlag(std::initializer_list<const char*> names) const {
    for (const char* name : names)
        if (argument() == name) return true;
    return false;
}

bool OptionReader::takeValue(std::initializer_list<const char*> names, std::string& value) {
    const std::string& a = argument();
    for (const char* name : names) {
        const std::string option = name;
        if (a == option) {
            const bool hasValue = index_ + 1 < args_.size() && args_[index_ + 1].rfind("--", 0) != 0;
            if (!hasValue) throw InputError(messagePrefix_ + *names.begin() + ": missing value");
            value = args_[++index_];
            return true;
        }
        // "--out=DIR"; short aliases have no "=" form ("-o=x" would be a value "=x").
        if (option.rfind("--", 0) == 0 && a.rfind(option + "=", 0) == 0) {
            value = a.substr(option.size() + 1);
            return true;
        }
    }
    return false;
}

}  // namespace ampscope::app
