#include "scenarios/NarrativeLinks.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace ampscope {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool startsWithNoCase(std::string_view text, std::size_t at, std::string_view word) {
    if (at + word.size() > text.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
    return true;
}

class Scanner {
public:
    explicit Scanner(const std::string& text) : text_(text) {
        for (std::size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n') newlines_.push_back(i);
    }

    std::vector<NarrativeLink> run() {
        bool lineStart = true;
        std::size_t indent = 0;
        for (std::size_t i = 0; i < text_.size(); ++i) {
            const char c = text_[i];
            if (c == '[') opens_.push_back({i, lineStart && indent <= 3});
            else if (c == ']') closeBracket(i);
            else if (c == '<') autolink(i);
            else if (c == '=') attribute(i);
            if (c == '\n') {
                lineStart = true;
                indent = 0;
            } else if (c == ' ' && lineStart) {
                ++indent;
            } else {
                lineStart = false;
            }
        }
        // A nested link closes before the one around it: in the order they start.
        std::stable_sort(links_.begin(), links_.end(),
                         [](const NarrativeLink& a, const NarrativeLink& b) { return a.begin < b.begin; });
        return std::move(links_);
    }

private:
    struct Open {
        std::size_t at;
        bool atLineStart;
    };

    // ']' closes the innermost open '[': [words](target) or, at a line's start,
    // [label]: target. Nested brackets ([![image](a)](b)) give both links.
    void closeBracket(std::size_t close) {
        const Open open = opens_.empty() ? Open{close, false} : opens_.back();
        if (!opens_.empty()) opens_.pop_back();
        if (close + 1 >= text_.size()) return;
        NarrativeLink link{open.at, lineOf(open.at), {}, {}, 0};
        if (open.at < close) link.words = text_.substr(open.at + 1, close - open.at - 1);
        std::size_t at = close + 1;
        if (text_[at] == '(') {
            ++at;
            while (at < text_.size() && isSpace(text_[at])) ++at;
            if (at < text_.size() && text_[at] == '<') ++at;
            const std::size_t start = at;
            // A destination may hold balanced parentheses: javascript:alert(1) whole.
            for (int depth = 0; at < text_.size() && text_[at] != '>' && !isSpace(text_[at]); ++at) {
                if (text_[at] == '(') ++depth;
                if (text_[at] == ')' && depth-- == 0) break;
            }
            link.target = text_.substr(start, at - start);
            if (at < text_.size() && text_[at] == ')') link.end = at + 1;
        } else if (text_[at] == ':' && open.atLineStart && open.at < close) {
            link.words.clear();
            ++at;
            while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t')) ++at;
            if (at < text_.size() && text_[at] == '<') ++at;
            const std::size_t start = at;
            while (at < text_.size() && text_[at] != '>' && !isSpace(text_[at])) ++at;
            link.target = text_.substr(start, at - start);
        } else {
            return;
        }
        links_.push_back(std::move(link));
    }

    // <scheme:...>: a scheme (a letter, then letters, digits, '+', '.', '-'), ':', no
    // space or '<' before the '>'.
    void autolink(std::size_t open) {
        std::size_t at = open + 1;
        if (at >= text_.size() || !std::isalpha(static_cast<unsigned char>(text_[at]))) return;
        while (at < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at])) || text_[at] == '+' ||
                                     text_[at] == '.' || text_[at] == '-'))
            ++at;
        if (at >= text_.size() || text_[at] != ':') return;
        const std::size_t end = text_.find_first_of("<> \t\r\n", at);
        if (end == std::string::npos || text_[end] != '>') return;
        links_.push_back({open, lineOf(open), text_.substr(open + 1, end - open - 1), {}, 0});
    }

    // href="..." / src='...' of inline HTML (the '=' found; the name before it).
    void attribute(std::size_t equals) {
        std::size_t name = equals;
        while (name > 0 && isSpace(text_[name - 1])) --name;
        std::size_t begin = std::string::npos;
        if (name >= 4 && startsWithNoCase(text_, name - 4, "href")) begin = name - 4;
        else if (name >= 3 && startsWithNoCase(text_, name - 3, "src")) begin = name - 3;
        if (begin == std::string::npos) return;
        std::size_t at = equals + 1;
        while (at < text_.size() && isSpace(text_[at])) ++at;
        if (at >= text_.size() || (text_[at] != '"' && text_[at] != '\'')) return;
        const std::size_t end = text_.find(text_[at], at + 1);
        if (end == std::string::npos) return;
        links_.push_back({begin, lineOf(begin), text_.substr(at + 1, end - at - 1), {}, 0});
    }

    std::size_t lineOf(std::size_t offset) const {
        return 1 + static_cast<std::size_t>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) -
                                            newlines_.begin());
    }

    const std::string& text_;
    std::vector<Open> opens_;
    std::vector<std::size_t> newlines_;  // offsets of '\n', for a link's line
    std::vector<NarrativeLink> links_;
};

}  // namespace

std::vector<NarrativeLink> narrativeLinks(const std::string& markdown) { return Scanner(markdown).run(); }

}  // namespace ampscope
