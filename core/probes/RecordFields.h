#pragma once
// Plain (no torch). Field access shared by the probe record builders and
// parsers (ProbeRecords.cpp, ComparisonRecords.cpp, StepAuditRecords.cpp), so
// every record reports a malformed field in the same words:
// "<type> record: missing field \"x\"". Internal to core/probes.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ampscope::record_fields {

using json = nlohmann::json;

// Throws ProbeRecordError("<record> record: <what>").
[[noreturn]] void fail(std::string_view record, const std::string& what);
const json& field(const json& j, const char* key, std::string_view record);
int64_t intField(const json& j, const char* key, std::string_view record);
std::string stringField(const json& j, const char* key, std::string_view record);
bool boolField(const json& j, const char* key, std::string_view record);
// A number that may be written null (non-finite) with "<key>_nonfinite".
double numberField(const json& j, const char* key, std::string_view record);
const json& arrayField(const json& j, const char* key, std::string_view record);
void requireType(const json& j, std::string_view type);

// JSON has no NaN/Inf: a non-finite number is written as null, with
// "<key>_nonfinite": "nan" | "inf" | "-inf" saying which (as RunRecords does).
void putNumber(json& record, const char* key, double value);

}  // namespace ampscope::record_fields
