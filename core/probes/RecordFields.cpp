#include "probes/RecordFields.h"

#include <cmath>
#include <limits>

#include "probes/ProbeRecords.h"

namespace ampscope::record_fields {

void fail(std::string_view record, const std::string& what) {
    throw ProbeRecordError(std::string(record) + " record: " + what);
}

const json& field(const json& j, const char* key, std::string_view record) {
    if (!j.is_object()) fail(record, "not a JSON object");
    const auto it = j.find(key);
    if (it == j.end()) fail(record, std::string("missing field \"") + key + "\"");
    return *it;
}

int64_t intField(const json& j, const char* key, std::string_view record) {
    const json& v = field(j, key, record);
    if (!v.is_number_integer())
        fail(record, std::string("field \"") + key + "\" must be an integer");
    return v.get<int64_t>();
}

std::string stringField(const json& j, const char* key, std::string_view record) {
    const json& v = field(j, key, record);
    if (!v.is_string()) fail(record, std::string("field \"") + key + "\" must be a string");
    return v.get<std::string>();
}

bool boolField(const json& j, const char* key, std::string_view record) {
    const json& v = field(j, key, record);
    if (!v.is_boolean()) fail(record, std::string("field \"") + key + "\" must be true or false");
    return v.get<bool>();
}

double numberField(const json& j, const char* key, std::string_view record) {
    const json& v = field(j, key, record);
    if (v.is_number()) return v.get<double>();
    if (!v.is_null()) fail(record, std::string("field \"") + key + "\" must be a number or null");
    const auto tag = j.find(std::string(key) + "_nonfinite");
    if (tag != j.end() && tag->is_string()) {
        if (*tag == "inf") return std::numeric_limits<double>::infinity();
        if (*tag == "-inf") return -std::numeric_limits<double>::infinity();
    }
    return std::numeric_limits<double>::quiet_NaN();
}

const json& arrayField(const json& j, const char* key, std::string_view record) {
    const json& v = field(j, key, record);
    if (!v.is_array()) fail(record, std::string("field \"") + key + "\" must be an array");
    return v;
}

void requireType(const json& j, std::string_view type) {
    if (stringField(j, "type", type) != type)
        fail(type, "\"type\" is \"" + j.at("type").get<std::string>() + "\"");
}

void putNumber(json& record, const char* key, double value) {
    if (std::isfinite(value)) {
        record[key] = value;
        return;
    }
    record[key] = nullptr;
    record[std::string(key) + "_nonfinite"] =
        std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}

}  // namespace ampscope::record_fields
