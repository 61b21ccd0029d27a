#pragma once
// A nesting limit for JSON that users hand us (config files, --set values, run
// directories). nlohmann parses and destroys any depth without recursion, but
// copying a value and dump() recurse once per level: a 200 KB config file of
// '[' crashed ampscope-cli with a stack overflow while quoting the value in
// its error message. Readers parse first (so syntax errors keep their
// messages), then refuse text nested deeper than this. AmpScope's own files
// nest at most 4 levels.
#include <cstddef>
#include <string_view>

namespace ampscope {

inline constexpr std::size_t kMaxJsonNesting = 64;

// Offset of the '[' or '{' that opens level limit + 1 of JSON text, or npos when
// the text nests no deeper than limit. Meant for text that parsed: it only
// tracks strings (and their escapes) to skip brackets inside them.
inline std::size_t findExcessJsonNesting(std::string_view text,
                                         std::size_t limit = kMaxJsonNesting) {
    std::size_t depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                inString = false;
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::string_view::npos;
}

}  // namespace ampscope
