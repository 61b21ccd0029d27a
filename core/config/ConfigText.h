#pragma once
// How config messages quote what the user gave, so that parse errors and validation
// errors read alike: strings in double quotes, numbers in their shortest exact form
// ("0.1", not "0.10000000000000001"), long JSON values cut short. Internal to core.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ampscope::config_text {

std::string number(double value);               // shortest round-trip form; "inf", "nan"
std::string quoted(const std::string& text);    // JSON string literal: "fp8"
std::string describe(const nlohmann::json& value);  // compact JSON, at most ~48 characters
std::string joined(const std::vector<std::string>& items);  // "a, b, c"
// A key of the user's document as it reads in a path: as is, or as a JSON string
// literal when it holds a control character, so a message stays one line
// ("optim.\"l\nr\": unknown key").
std::string key(const std::string& text);

}  // namespace ampscope::config_text
