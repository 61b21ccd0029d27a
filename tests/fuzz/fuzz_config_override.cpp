// Fuzzes "--set key.path=value" (applyOverride) on a config document.
// Input: the assignment, a newline, then the document's JSON text (or nothing: {}).
// Contract checked: every failure is an InputError with a one-line what(), and
// an override that applies leaves a document configFromJson judges with an
// InputError or a valid config, never anything else.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "FuzzSupport.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"

using ampscope::InputError;
using ampscope::fuzz::isOneLine;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    const std::string assignment = input.substr(0, newline);
    const std::string documentText = newline == std::string::npos ? "" : input.substr(newline + 1);

    nlohmann::json document = nlohmann::json::object();
    if (!documentText.empty()) {
        document = nlohmann::json::parse(documentText, nullptr, false);
        if (document.is_discarded()) return 0;  // the file reader's business (fuzz_config)
        // The CLI applies overrides only to what loadConfigDocument accepted.
        try {
            const ampscope::fuzz::MemoryFile file(documentText);
            document = ampscope::loadConfigDocument(file.path());
        } catch (const InputError&) {
            return 0;
        }
    }

    try {
        ampscope::applyOverride(document, assignment);
        ampscope::configFromJson(document);
    } catch (const InputError& error) {
        FUZZ_CHECK(isOneLine(error.what()), error.what());
    }
    return 0;
}
