// RunConfig <-> JSON: a writer and a strict reader over the field lists of
// ConfigSchema.h. Files and overrides live in ConfigFile.cpp and ConfigOverride.cpp.
#include "config/ConfigJson.h"
#include "config/ConfigUnvalidated.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "common/InputError.h"
#include "config/ConfigSchema.h"
#include "config/ConfigText.h"
#include "config/ConfigValidation.h"

namespace ampscope {

namespace {

using nlohmann::json;

// ---- writing ----------------------------------------------------------------------

// Templated on the JSON type so that saveConfigFile can keep RunConfig's field order
// (nlohmann::ordered_json) while configToJson returns the plain nlohmann::json.
template <class Json>
class Writer {
public:
    explicit Writer(Json& out) : out_(out) { out_ = Json::object(); }

    template <class T>
    void field(const char* key, const T& value) {
        out_[key] = Json(value);
    }
    void field(const char* key, const std::vector<FaultConfig>& faults) {
        Json list = Json::array();
        for (const FaultConfig& fault : faults) {
            Json element;
            Writer writer(element);
            config_schema::visitFault(writer, fault);
            list.push_back(std::move(element));
        }
        out_[key] = std::move(list);
    }
    template <class T, class Visit>
    void section(const char* key, const T& value, Visit visit) {
        Writer writer(out_[key]);
        visit(writer, value);
    }

private:
    Json& out_;
};

// ---- reading ----------------------------------------------------------------------

[[noreturn]] void fail(const std::string& path, const std::string& message) {
    throw InputError(path + ": " + message);
}

std::string got(const json& value) { return " (got " + config_text::describe(value) + ")"; }

std::string child(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}
std::string element(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

// Lists the keys a section allows, in field order, without touching any value.
struct KeyLister {
    std::vector<std::string> keys;
    template <class T>
    void field(const char* key, const T&) {
        keys.emplace_back(key);
    }
    template <class T, class Visit>
    void section(const char* key, const T&, Visit) {
        keys.emplace_back(key);
    }
};

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                               diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

void rejectUnknownKeys(const json& object, const std::string& path,
                       const std::vector<std::string>& allowed) {
    for (const auto& item : object.items()) {
        const std::string& key = item.key();
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        std::string message = "unknown key (allowed: " + config_text::joined(allowed) + ")";
        // A typo is the usual cause; name the nearest key when it is close enough.
        const std::string* nearest = nullptr;
        std::size_t best = 3;
        for (const auto& candidate : allowed) {
            const std::size_t distance = editDistance(key, candidate);
            if (distance < best && distance < candidate.size()) {
                best = distance;
                nearest = &candidate;
            }
        }
        if (nearest) message += "; did you mean '" + *nearest + "'?";
        fail(child(path, config_text::key(key)), message);
    }
}

// JSON does not tell integers from other numbers; 2.0 and 1e3 are accepted as the
// integers they equal, 2.5 is not. The range check keeps the cast below defined.
template <class Int>
void decodeInteger(const json& node, const std::string& path, Int& out) {
    constexpr Int low = std::numeric_limits<Int>::min();
    constexpr Int high = std::numeric_limits<Int>::max();
    const std::string rangeText =
        "expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
    if (node.is_number_unsigned()) {
        const auto value = node.get<uint64_t>();
        if (!std::in_range<Int>(value)) fail(path, rangeText + got(node));
        out = static_cast<Int>(value);
    } else if (node.is_number_integer()) {
        const auto value = node.get<int64_t>();
        if (!std::in_range<Int>(value)) fail(path, rangeText + got(node));
        out = static_cast<Int>(value);
    } else if (node.is_number_float()) {
        const double value = node.get<double>();
        if (!std::isfinite(value) || std::floor(value) != value)
            fail(path, "expected an integer" + got(node));
        // high + 1.0 is a power of two, exact in double even where high itself is not.
        if (value < static_cast<double>(low) || value >= static_cast<double>(high) + 1.0)
            fail(path, rangeText + got(node));
        out = static_cast<Int>(value);
    } else {
        fail(path, "expected an integer" + got(node));
    }
}

void decode(const json& node, const std::string& path, int& out) {
    decodeInteger(node, path, out);
}
void decode(const json& node, const std::string& path, int64_t& out) {
    decodeInteger(node, path, out);
}
void decode(const json& node, const std::string& path, uint64_t& out) {
    decodeInteger(node, path, out);
}

void decode(const json& node, const std::string& path, double& out) {
    if (!node.is_number()) fail(path, "expected a number" + got(node));
    out = node.get<double>();
    // Parsed text cannot be non-finite (nlohmann rejects 1e400), but a document built
    // in code can be.
    if (!std::isfinite(out)) fail(path, "must be a finite number" + got(node));
}

void decode(const json& node, const std::string& path, bool& out) {
    if (!node.is_boolean()) fail(path, "expected true or false" + got(node));
    out = node.get<bool>();
}

void decode(const json& node, const std::string& path, std::string& out) {
    if (!node.is_string()) fail(path, "expected a string" + got(node));
    out = node.get<std::string>();
}

void decode(const json& node, const std::string& path, std::vector<int64_t>& out) {
    if (!node.is_array()) fail(path, "expected an array of integers" + got(node));
    std::vector<int64_t> values(node.size());
    for (std::size_t i = 0; i < node.size(); ++i) decode(node[i], element(path, i), values[i]);
    out = std::move(values);
}

void decode(const json& node, const std::string& path, std::vector<std::string>& out) {
    if (!node.is_array()) fail(path, "expected an array of strings" + got(node));
    std::vector<std::string> values(node.size());
    for (std::size_t i = 0; i < node.size(); ++i) decode(node[i], element(path, i), values[i]);
    out = std::move(values);
}

void decode(const json& node, const std::string& path,
            std::vector<std::array<int64_t, 5>>& out) {
    const char* shape = "[in, out, kernel, stride, pad]";
    if (!node.is_array())
        fail(path, std::string("expected an array of blocks ") + shape + got(node));
    std::vector<std::array<int64_t, 5>> blocks(node.size());
    for (std::size_t i = 0; i < node.size(); ++i) {
        const json& block = node[i];
        const std::string blockPath = element(path, i);
        if (!block.is_array() || block.size() != 5)
            fail(blockPath, std::string("expected 5 integers ") + shape + got(block));
        for (std::size_t j = 0; j < 5; ++j)
            decode(block[j], element(blockPath, j), blocks[i][j]);
    }
    out = std::move(blocks);
}

void decode(const json& node, const std::string& path, std::vector<FaultConfig>& out);

// Reads the fields of one object: the visitor RunConfig's sections are walked with.
class Reader {
public:
    Reader(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

    template <class T>
    void field(const char* key, T& value) {
        const auto it = object_.find(key);
        if (it != object_.end()) decode(*it, child(path_, key), value);
    }
    template <class T, class Visit>
    void section(const char* key, T& value, Visit visit);

private:
    const json& object_;
    std::string path_;
};

// Unknown keys are reported before any value of the object: a misspelt key is the
// likelier mistake, and its value would otherwise be silently dropped.
template <class T, class Visit>
void readObject(const json& node, const std::string& path, T& value, Visit visit) {
    if (!node.is_object()) fail(path, "expected an object" + got(node));
    KeyLister lister;
    visit(lister, value);
    rejectUnknownKeys(node, path, lister.keys);
    Reader reader(node, path);
    visit(reader, value);
}

template <class T, class Visit>
void Reader::section(const char* key, T& value, Visit visit) {
    const auto it = object_.find(key);
    if (it != object_.end()) readObject(*it, child(path_, key), value, visit);
}

void decode(const json& node, const std::string& path, std::vector<FaultConfig>& out) {
    if (!node.is_array()) fail(path, "expected an array of fault objects" + got(node));
    std::vector<FaultConfig> faults(node.size());
    for (std::size_t i = 0; i < node.size(); ++i)
        readObject(node[i], element(path, i), faults[i],
                   [](auto& visitor, auto& fault) { config_schema::visitFault(visitor, fault); });
    out = std::move(faults);
}

// Values of the same schema version written before a field took its present type:
// probes.locate_nonfinite was a boolean (true: check every layer on every step).
json withLegacyValuesUpgraded(const json& document) {
    const auto probes = document.find("probes");
    if (probes == document.end() || !probes->is_object()) return document;
    const auto locate = probes->find("locate_nonfinite");
    if (locate == probes->end() || !locate->is_boolean()) return document;
    json upgraded = document;
    upgraded["probes"]["locate_nonfinite"] = locate->get<bool>() ? "always" : "off";
    return upgraded;
}

}  // namespace

nlohmann::json configToJson(const RunConfig& config) {
    json document;
    Writer<json> writer(document);
    config_schema::visitRun(writer, config);
    return document;
}

// Used by saveConfigFile (ConfigFile.cpp): the same document in RunConfig's order.
nlohmann::ordered_json configToOrderedJson(const RunConfig& config) {
    nlohmann::ordered_json document;
    Writer<nlohmann::ordered_json> writer(document);
    config_schema::visitRun(writer, config);
    return document;
}

RunConfig configFromJsonUnvalidated(const nlohmann::json& document) {
    if (!document.is_object()) fail("config", "expected a JSON object" + got(document));

    RunConfig config;
    // The version comes first: a newer file may have keys this build does not know,
    // and "newer than this AmpScope" is the useful message then, not "unknown key".
    const auto version = document.find("schema_version");
    if (version != document.end()) {
        decode(*version, "schema_version", config.schema_version);
        if (config.schema_version > kConfigSchemaVersion)
            fail("schema_version", std::to_string(config.schema_version) +
                                       " is newer than this AmpScope understands (" +
                                       std::to_string(kConfigSchemaVersion) + ")");
    }
    const json upgraded = withLegacyValuesUpgraded(document);
    readObject(upgraded, "", config,
               [](auto& visitor, auto& run) { config_schema::visitRun(visitor, run); });
    return config;
}

RunConfig configFromJson(const nlohmann::json& document) {
    RunConfig config = configFromJsonUnvalidated(document);
    throwIfInvalid(config);
    return config;
}

}  // namespace ampscope
