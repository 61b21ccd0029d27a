// "--set key.path=value": edits a config document before configFromJson sees it, so
// an override is held to the same strict typing and validation as the file.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/InputError.h"
#include "common/JsonNesting.h"
#include "config/ConfigJson.h"
#include "config/ConfigText.h"

namespace ampscope {

namespace {

using nlohmann::json;

struct Assignment {
    std::string text;  // as given, for messages
    std::string key;
    std::string value;
};

[[noreturn]] void fail(const Assignment& assignment, const std::string& message) {
    throw InputError("--set " + assignment.text + ": " + message);
}

Assignment splitAssignment(const std::string& text) {
    Assignment assignment{text, {}, {}};
    const auto equals = text.find('=');
    if (equals == std::string::npos) fail(assignment, "missing '=' (write key.path=value)");
    assignment.key = text.substr(0, equals);
    assignment.value = text.substr(equals + 1);
    if (assignment.key.empty()) fail(assignment, "missing the key before '='");
    return assignment;
}

std::vector<std::string> splitPath(const std::string& key) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto dot = key.find('.', start);
        parts.push_back(key.substr(start, dot == std::string::npos ? dot : dot - start));
        if (dot == std::string::npos) return parts;
        start = dot + 1;
    }
}

bool parseIndex(const std::string& part, std::size_t& index) {
    if (part.empty() || part.size() > 9) return false;
    for (const char c : part)
        if (c < '0' || c > '9') return false;
    index = static_cast<std::size_t>(std::stoul(part));
    return true;
}

// What a fault object holds by default: faults is empty in the defaults, yet
// "faults.0.factor" must be settable on a fault the file gives without a factor.
json faultTemplate() {
    RunConfig config;
    config.faults.resize(1);
    return configToJson(config)["faults"][0];
}

// The document as configFromJson will read it: defaults with the document laid over.
// Objects merge key by key; a list in the document replaces the default list, except
// that each fault object is itself laid over the fault defaults.
json withDefaults(const json& defaults, const json& document, const std::string& path) {
    if (defaults.is_object() && document.is_object()) {
        json merged = defaults;
        for (const auto& item : document.items()) {
            const std::string childPath = path.empty() ? item.key() : path + "." + item.key();
            const auto known = defaults.find(item.key());
            merged[item.key()] = known != defaults.end()
                                     ? withDefaults(*known, item.value(), childPath)
                                     : item.value();
        }
        return merged;
    }
    if (path == "faults" && document.is_array()) {
        const json fault = faultTemplate();
        json merged = json::array();
        for (const json& element : document) merged.push_back(withDefaults(fault, element, ""));
        return merged;
    }
    return document;
}

std::string joinedKeys(const json& object) {
    std::string text;
    for (const auto& item : object.items())
        text += (text.empty() ? "" : ", ") + config_text::key(item.key());
    return text;
}

// Walks the path through the full document; names what is there when it stops.
const json& findTarget(const json& full, const std::vector<std::string>& parts,
                       const Assignment& assignment) {
    const json* node = &full;
    std::string walked;
    for (const std::string& part : parts) {
        const std::string noSuchKey = "no such key '" + assignment.key + "'";
        if (node->is_object()) {
            const auto it = node->find(part);
            if (part.empty() || it == node->end())
                fail(assignment, noSuchKey + " (" + (walked.empty() ? "the config" : walked) +
                                     " has: " + joinedKeys(*node) + ")");
            node = &*it;
        } else if (node->is_array()) {
            std::size_t index = 0;
            if (!parseIndex(part, index) || index >= node->size()) {
                const std::size_t size = node->size();
                fail(assignment, noSuchKey + " (" + walked +
                                     (size == 0 ? " is empty)"
                                                : " has " + std::to_string(size) +
                                                      (size == 1 ? " element" : " elements") +
                                                      ", indexed from 0)"));
            }
            node = &(*node)[index];
        } else {
            fail(assignment, noSuchKey + " (" + walked + " is a " + node->type_name() + ")");
        }
        walked += (walked.empty() ? "" : ".") + part;
    }
    return *node;
}

// JSON when the text parses as JSON, else the text itself as a string. Where the key
// holds a string, the text is always the string ("name=2024" names the run "2024"),
// unless it is written as a JSON string literal.
json parseValue(const Assignment& assignment, const json& target) {
    const std::string& text = assignment.value;
    json value = json::parse(text, nullptr, false);
    if (target.is_string()) return !value.is_discarded() && value.is_string() ? value : json(text);
    // Copying and quoting a value recurse per level (see JsonNesting.h).
    if (!value.is_discarded() && findExcessJsonNesting(text) != std::string::npos)
        fail(assignment, "the value is nested deeper than " + std::to_string(kMaxJsonNesting) +
                             " levels");
    if (!value.is_discarded()) return value;
    // nlohmann refuses numbers beyond double's range; say so instead of reporting
    // "expected a number (got "1e400")".
    errno = 0;
    char* end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    if (!text.empty() && end && *end == '\0' && errno == ERANGE && std::isinf(number))
        fail(assignment, "must be a finite number (got " + text + ")");
    return json(text);
}

}  // namespace

void applyOverride(nlohmann::json& document, const std::string& assignmentText) {
    const Assignment assignment = splitAssignment(assignmentText);
    if (document.is_null()) document = json::object();
    if (!document.is_object()) fail(assignment, "the config is not a JSON object");

    const std::vector<std::string> parts = splitPath(assignment.key);
    const json full = withDefaults(configToJson(RunConfig{}), document, "");
    const json value = parseValue(assignment, findTarget(full, parts, assignment));

    // Set the value in the document itself, creating what it leaves to the defaults:
    // an absent section becomes an object holding just this key; an absent list is
    // copied from the defaults first, so that "model.hidden.1=64" keeps hidden[0].
    json* node = &document;
    const json* fullNode = &full;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const bool last = i + 1 == parts.size();
        if (node->is_object()) {
            const std::string& key = parts[i];
            const json& fullChild = fullNode->at(key);
            if (last) {
                (*node)[key] = value;
                return;
            }
            if (!node->contains(key))
                (*node)[key] = fullChild.is_array() ? fullChild : json::object();
            node = &(*node)[key];
            fullNode = &fullChild;
        } else {
            // An array: findTarget checked the index against the same elements.
            std::size_t index = 0;
            parseIndex(parts[i], index);
            if (last) {
                (*node)[index] = value;
                return;
            }
            node = &(*node)[index];
            fullNode = &fullNode->at(index);
        }
    }
}

}  // namespace ampscope
