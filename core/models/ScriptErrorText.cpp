#include "models/ScriptErrorText.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ampscope {

namespace {

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string trimmed(const std::string& text) {
    size_t begin = 0, end = text.size();
    while (begin < end && isSpace(text[begin])) ++begin;
    while (end > begin && isSpace(text[end - 1])) --end;
    return text.substr(begin, end - begin);
}

std::vector<std::string> nonBlankLines(const std::string& message) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= message.size()) {
        const size_t end = std::min(message.find('\n', start), message.size());
        const std::string line = trimmed(message.substr(start, end - start));
        if (!line.empty()) lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

bool startsWith(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// LibTorch ends these sentences with "." or ":" before its excerpt; inside the
// refusal's own sentence they would read as punctuation of the op's name.
std::string withoutTrailingPunctuation(std::string text) {
    while (!text.empty() && (text.back() == '.' || text.back() == ':' || isSpace(text.back()))) text.pop_back();
    return text;
}

// "RuntimeError: text" (or torch.jit.Error, ValueError, ...): the error under the
// interpreter's traceback. Returns the text, or "" for any other line.
std::string exceptionText(const std::string& line) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos || colon == 0) return "";
    const std::string kind = line.substr(0, colon);
    if (!(std::isalpha(static_cast<unsigned char>(kind[0])) || kind[0] == '_')) return "";
    for (char c : kind)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return "";
    if (!endsWith(kind, "Error") && !endsWith(kind, "Exception")) return "";
    return trimmed(line.substr(colon + 2));
}

// caffe2's checks open with "[enforce fail at inline_container.cc:129] . ", the place
// in LibTorch's source: nothing a user can act on.
std::string withoutEnforcePrefix(const std::string& line) {
    if (!startsWith(line, "[enforce fail at ")) return line;
    const size_t close = line.find(']');
    if (close == std::string::npos) return line;
    std::string rest = trimmed(line.substr(close + 1));
    if (startsWith(rest, ". ")) rest = trimmed(rest.substr(2));
    return rest.empty() ? line : rest;
}

bool mentionsVersion(const std::string& line) {
    std::string lower(line);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find("version") != std::string::npos;
}

// The leading digits of "1.13.0": LibTorch's major version.
int majorOf(const std::string& version) {
    int major = 0;
    for (char c : version) {
        if (!std::isdigit(static_cast<unsigned char>(c))) break;
        major = major * 10 + (c - '0');
    }
    return major;
}

// The number after `marker` in line, as written; "" when there is none.
std::string numberAfter(const std::string& line, const std::string& marker) {
    const size_t at = line.find(marker);
    if (at == std::string::npos) return "";
    size_t end = at + marker.size();
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
    return line.substr(at + marker.size(), end - at - marker.size());
}

}  // namespace

std::string meaningfulErrorLine(const std::string& message) {
    const std::vector<std::string> lines = nonBlankLines(message);
    if (lines.empty()) return "";
    // What the compiler of a file's code did not know: the line that names it, whatever
    // excerpt and suggestions surround it.
    for (const char* marker : {"Unknown builtin op: ", "Unknown type name "})
        for (const auto& line : lines) {
            const size_t at = line.find(marker);
            if (at != std::string::npos) return withoutTrailingPunctuation(line.substr(at));
        }
    // The interpreter prints its traceback first and the error last.
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        const std::string text = exceptionText(*it);
        if (!text.empty()) return text;
    }
    for (const auto& line : lines)
        if (mentionsVersion(line)) return withoutEnforcePrefix(line);
    return withoutEnforcePrefix(lines.front());
}

std::string newerPyTorchRefusal(const std::string& message, const std::string& torchVersion) {
    const std::string line = meaningfulErrorLine(message);
    const std::string build = "this build's LibTorch " + torchVersion;
    const std::string newer = "the file was saved by a newer PyTorch than " + build;
    const std::string loader = majorOf(torchVersion) < 2
                                   ? "an AmpScope built against LibTorch 2.x (e.g. on Debian 13) can load it"
                                   : "an AmpScope built against a newer LibTorch can load it";
    const std::string op = "Unknown builtin op: ";
    if (startsWith(line, op)) {
        const std::string name = trimmed(line.substr(op.size()));
        const std::string space = name.substr(0, name.find("::"));
        if (space == "aten" || space == "prim") return "uses " + name + ": " + newer + ", which lacks that op; " + loader;
        // Another namespace is an extension's operator (torchvision::nms, a custom op):
        // no PyTorch release has it, and the lab loads no extension libraries.
        return "uses " + name + ", an operator of an extension library that " + build +
               " does not have (the lab loads PyTorch's own operators only)";
    }
    const std::string type = "Unknown type name ";
    if (startsWith(line, type)) {
        std::string name = trimmed(line.substr(type.size()));
        if (name.size() >= 2 && name.front() == '\'' && name.back() == '\'') name = name.substr(1, name.size() - 2);
        return "uses the type " + name + ": " + newer + ", which lacks that type; " + loader;
    }
    const std::string fileVersion = numberAfter(line, "Attempted to read a PyTorch file with version ");
    const std::string readable = numberAfter(line, "maximum supported version for reading is ");
    if (!fileVersion.empty() && !readable.empty())
        return "is a version " + fileVersion + " archive: " + newer + ", which reads up to version " + readable +
               "; " + loader;
    if (mentionsVersion(line)) return "cannot load as TorchScript (" + line + "): " + newer + "; " + loader;
    return "";
}

}  // namespace ampscope
