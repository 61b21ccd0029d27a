#include "RequestedConfig.h"

#include <nlohmann/json.hpp>

#include "common/InputError.h"
#include "config/ConfigJson.h"

namespace ampscope::app {

RunConfig requestedConfig(const CliRequest& request) {
    nlohmann::json document = loadConfigDocument(request.configPath);
    for (const auto& assignment : request.overrides) applyOverride(document, assignment);
    try {
        return configFromJson(document);
    } catch (const InputError& e) {
        throw InputError(request.configPath + ": " + e.what());
    }
}

}  // namespace ampscope::app
