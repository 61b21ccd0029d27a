#pragma once
// configFromJson (ConfigJson.h) without its last step, validation: the document read as
// strictly (an unknown key or a wrong type is an InputError naming its path), but the
// ranges and rules of validateConfig (ConfigValidation.h) not yet checked, so that a
// caller can list every problem of a config instead of the first. check-lesson
// (core/scenarios) does, for each run of a lesson; everything that runs a config goes
// through configFromJson.
#include <nlohmann/json_fwd.hpp>

#include "config/RunConfig.h"

namespace ampscope {

RunConfig configFromJsonUnvalidated(const nlohmann::json& document);

}  // namespace ampscope
