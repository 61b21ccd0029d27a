#include "scenarios/JsonLineIndex.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "config/ConfigText.h"

namespace ampscope {
namespace {

// One open object or array of the scan: its path, and for an array the next index, for
// an object the key read last (the next value's name).
struct Container {
    std::string path;
    bool isArray = false;
    std::size_t nextIndex = 0;
    std::string key;
};

class Scanner {
public:
    Scanner(std::string_view text, std::map<std::string, std::size_t>& lines) : text_(text), lines_(lines) {}

    void run() {
        bool expectingKey = false;
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == '\n') {
                ++line_;
                ++at_;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == ':') {
                ++at_;
            } else if (c == ',') {
                expectingKey = !stack_.empty() && !stack_.back().isArray;
                ++at_;
            } else if (c == '}' || c == ']') {
                if (!stack_.empty()) stack_.pop_back();
                ++at_;
            } else if (c == '"' && expectingKey) {
                stack_.back().key = readString();
                expectingKey = false;
            } else {
                const std::string path = nextValuePath();
                lines_.emplace(path, line_);
                if (c == '{' || c == '[') {
                    stack_.push_back({path, c == '[', 0, {}});
                    expectingKey = c == '{';
                    ++at_;
                } else if (c == '"') {
                    readString();
                } else {
                    while (at_ < text_.size() && std::string_view(",]} \t\r\n").find(text_[at_]) == std::string_view::npos)
                        ++at_;
                }
            }
        }
    }

private:
    std::string nextValuePath() {
        if (stack_.empty()) return {};
        Container& parent = stack_.back();
        if (parent.isArray) return JsonLineIndex::element(parent.path, parent.nextIndex++);
        return JsonLineIndex::child(parent.path, parent.key);
    }

    // A string token from its opening quote; its decoded text (nlohmann decodes escapes).
    std::string readString() {
        const std::size_t start = at_++;
        while (at_ < text_.size() && text_[at_] != '"') at_ += text_[at_] == '\\' ? 2 : 1;
        ++at_;
        const auto token = text_.substr(start, at_ - start);
        const auto decoded = nlohmann::json::parse(token, nullptr, false);
        return decoded.is_string() ? decoded.get<std::string>() : std::string(token);
    }

    std::string_view text_;
    std::map<std::string, std::size_t>& lines_;
    std::vector<Container> stack_;
    std::size_t at_ = 0;
    std::size_t line_ = 1;
};

}  // namespace

JsonLineIndex::JsonLineIndex(std::string_view text) { Scanner(text, lines_).run(); }

std::string JsonLineIndex::child(const std::string& path, const std::string& key) {
    const std::string shown = config_text::key(key);
    return path.empty() ? shown : path + "." + shown;
}

std::string JsonLineIndex::element(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

std::size_t JsonLineIndex::lineOf(const std::string& path) const {
    std::string at = path;
    while (true) {
        if (const auto it = lines_.find(at); it != lines_.end()) return it->second;
        if (at.empty()) return 1;
        // Up one level: drop the last "[i]" or ".key" (a quoted key may hold either, so
        // the cut is only a guess there; it errs towards an ancestor, never past the root).
        const std::size_t cut = at.back() == ']' ? at.rfind('[') : at.rfind('.');
        at = cut == std::string::npos ? std::string() : at.substr(0, cut);
    }
}

std::size_t JsonLineIndex::lineOfMessage(const std::string& message) const {
    std::size_t best = lineOf("");
    for (std::size_t colon = message.find(": "); colon != std::string::npos; colon = message.find(": ", colon + 1))
        if (const auto it = lines_.find(message.substr(0, colon)); it != lines_.end()) best = it->second;
    return best;
}

}  // namespace ampscope
