// Fuzzes config.json reading: loadConfigDocument (file text, positions in
// messages) and configFromJson (strict keys and types, validation).
// Contract checked beyond "no crash, no sanitizer report":
// - every failure is an InputError (never another exception) with a one-line what();
// - a config that loads saves and loads again to the same document (round trip).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "FuzzSupport.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"

using ampscope::InputError;
using ampscope::fuzz::isOneLine;
using ampscope::fuzz::MemoryFile;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);

    nlohmann::json document;
    {
        const MemoryFile file(text);
        try {
            document = ampscope::loadConfigDocument(file.path());
        } catch (const InputError& error) {
            FUZZ_CHECK(isOneLine(error.what()), error.what());
            return 0;
        }
    }

    ampscope::RunConfig config;
    try {
        config = ampscope::configFromJson(document);
    } catch (const InputError& error) {
        FUZZ_CHECK(isOneLine(error.what()), error.what());
        return 0;
    }

    // What loads must save and load again unchanged.
    const nlohmann::json saved = ampscope::configToJson(config);
    const std::string savedText = ampscope::configToOrderedJson(config).dump(2);
    ampscope::RunConfig again;
    try {
        again = ampscope::configFromJson(nlohmann::json::parse(savedText));
    } catch (const std::exception& error) {
        FUZZ_CHECK(false, std::string("a loaded config does not load again: ") + error.what());
    }
    FUZZ_CHECK(ampscope::configToJson(again) == saved, savedText);
    return 0;
}
