// config.json on disk: reading with file-and-position errors, writing atomically.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "common/InputError.h"
#include "common/JsonNesting.h"
#include "config/ConfigJson.h"

namespace ampscope {

namespace {

using nlohmann::json;

std::string systemError(int error) {
    return error != 0 ? std::strerror(error) : "unknown error";
}

// Finds where sax parsing stops. Only needed for errors nlohmann reports without a
// position (a number that overflows a double: "1e400"); parse_error carries its own.
class ErrorLocator : public json::json_sax_t {
public:
    std::size_t position = 0;
    std::string token;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t where, const std::string& last_token,
                     const nlohmann::detail::exception&) override {
        position = where;
        token = last_token;
        return false;
    }
};

// Line and column (both from 1) of the byte at offset. Columns count characters, not
// bytes, so that a name with accents before the error does not shift the column.
std::pair<std::size_t, std::size_t> lineAndColumn(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '\n') {
            ++line;
            column = 1;
        } else if ((byte & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
            ++column;
        }
    }
    return {line, column};
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 3,
// column 7: syntax error while parsing ...": keep the part after the position, since
// the position is computed here (nlohmann's own column is off by one at a newline).
std::string describeParseError(const std::string& what) {
    const auto columnAt = what.find("column ");
    if (columnAt != std::string::npos) {
        const auto colon = what.find(": ", columnAt);
        if (colon != std::string::npos) return what.substr(colon + 2);
    }
    const auto bracket = what.find("] ");
    return bracket != std::string::npos ? what.substr(bracket + 2) : what;
}

[[noreturn]] void failSyntax(const std::string& path, const std::string& text,
                             std::size_t offset, const std::string& description) {
    const auto [line, column] = lineAndColumn(text, offset);
    throw InputError(path + ": not valid JSON (line " + std::to_string(line) + ", column " +
                     std::to_string(column) + ": " + description + ")");
}

std::string readWholeFile(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        throw InputError(path + ": cannot open (Is a directory)");
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open (" + systemError(errno) + ")");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw InputError(path + ": cannot read (" + systemError(errno) + ")");
    return text.str();
}

}  // namespace

namespace {

// A file a config names is found relative to the config file's folder.
void resolveAgainst(const std::string& configPath, json& document, const char* section) {
    if (!document.is_object() || !document.contains(section) || !document[section].is_object()) return;
    json& node = document[section];
    if (!node.contains("path") || !node["path"].is_string()) return;
    const std::string named = node["path"].get<std::string>();
    if (named.empty() || std::filesystem::path(named).is_absolute()) return;
    std::error_code error;
    const auto folder = std::filesystem::absolute(configPath, error).parent_path();
    if (error) return;
    node["path"] = (folder / named).lexically_normal().string();
}

}  // namespace

nlohmann::json loadConfigDocument(const std::string& path) {
    const std::string text = readWholeFile(path);
    try {
        json document = json::parse(text);
        // Parsed first, so that a syntax error is reported as one; then no deeper
        // than copying and quoting a value can go without overflowing the stack.
        if (const std::size_t at = findExcessJsonNesting(text); at != std::string::npos) {
            const auto [line, column] = lineAndColumn(text, at);
            throw InputError(path + ": nested deeper than " + std::to_string(kMaxJsonNesting) +
                             " levels (line " + std::to_string(line) + ", column " +
                             std::to_string(column) + ")");
        }
        resolveAgainst(path, document, "model");
        resolveAgainst(path, document, "data");
        return document;
    } catch (const json::parse_error& error) {
        // error.byte counts from 1 and points at the character that broke the parse.
        failSyntax(path, text, error.byte > 0 ? error.byte - 1 : 0,
                   describeParseError(error.what()));
    } catch (const json::exception& error) {
        ErrorLocator locator;
        json::sax_parse(text, &locator);
        // Point at the start of the offending token rather than its last character.
        const std::size_t end = locator.position;
        const std::size_t offset = end >= locator.token.size() ? end - locator.token.size() : 0;
        failSyntax(path, text, offset, describeParseError(error.what()));
    }
}

RunConfig loadConfigFile(const std::string& path) {
    const json document = loadConfigDocument(path);
    try {
        return configFromJson(document);
    } catch (const InputError& error) {
        // Name the file too: "FILE: optim.lr: must be in (0, 10] (got 100)".
        throw InputError(path + ": " + error.what());
    }
}

void saveConfigFile(const RunConfig& config, const std::string& path) {
    const std::string text =
        configToOrderedJson(config).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    // Write a sibling and rename it over the target, so that a crash or a full disk
    // leaves the old file or the new one, never half of one.
    const std::string temporary = path + ".tmp";
    errno = 0;
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw InputError(path + ": cannot write (" + systemError(errno) + ")");
        out << text;
        out.flush();
        if (!out) {
            const int error = errno;
            out.close();
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            throw InputError(path + ": cannot write (" + systemError(error) + ")");
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw InputError(path + ": cannot write (" + error.message() + ")");
    }
}

}  // namespace ampscope
