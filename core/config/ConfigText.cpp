#include "config/ConfigText.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ampscope::config_text {

namespace {
constexpr std::size_t kMaxDescribed = 48;
}

std::string number(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string quoted(const std::string& text) {
    // Through nlohmann so that quotes and control characters come out escaped, and
    // invalid UTF-8 (a binary file read as a path, say) cannot throw while reporting.
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string describe(const nlohmann::json& value) {
    // A json built in code can hold inf/nan, which dump() would print as null.
    if (value.is_number_float() && !std::isfinite(value.get<double>()))
        return number(value.get<double>());
    std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() > kMaxDescribed) {
        // Cut on a UTF-8 character boundary so the message stays valid text.
        std::size_t cut = kMaxDescribed - 3;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        text = text.substr(0, cut) + "...";
    }
    return text;
}

std::string key(const std::string& text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return quoted(text);
    return text;
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) {
        if (!text.empty()) text += ", ";
        text += item;
    }
    return text;
}

}  // namespace ampscope::config_text
