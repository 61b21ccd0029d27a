#pragma once
// Where each value of a JSON text starts: its 1-based line, by the value's path as the
// config's messages write it ("optim.lr", "model.hidden[2]", "views[1].run"; keys that are
// not plain words quoted as config_text::key quotes them). check-lesson names the line of
// every problem it finds (FILE:LINE: what), and the parsers that find them (the config's,
// the scenario's) name values by these paths, not by offsets.
//
// The text must have parsed as JSON already: the scan only follows strings, brackets,
// colons and commas. No torch, no Qt.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace ampscope {

class JsonLineIndex {
public:
    explicit JsonLineIndex(std::string_view text);
    // The line where `path`'s value starts; a path the text does not hold (a default,
    // a key that is missing) gives its nearest ancestor's line, and the root's is the
    // line of the first value.
    std::size_t lineOf(const std::string& path) const;
    // A message that starts with a path and ": " (InputError's "optim.lrr: unknown key"):
    // the line of the longest such prefix the text holds, else the root's line.
    std::size_t lineOfMessage(const std::string& message) const;

    static std::string child(const std::string& path, const std::string& key);
    static std::string element(const std::string& path, std::size_t index);

private:
    std::map<std::string, std::size_t> lines_;
};

}  // namespace ampscope
