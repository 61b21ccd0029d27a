#pragma once
// The files of resources/scenarios/ as compiled into core (generated at build time
// by EmbedScenarioFiles.cmake). Plain C++; the catalogue (ScenarioCatalogue.h) is
// what the rest of the program uses, this is its raw material and what the test
// comparing resources/scenarios/ with the built-ins reads.
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

struct EmbeddedFile {
    std::string path;       // relative to resources/scenarios/, e.g. "amp-sanity/fp32.json"
    std::string_view text;  // the file's bytes
};

const std::vector<EmbeddedFile>& embeddedScenarioFiles();

}  // namespace ampscope
