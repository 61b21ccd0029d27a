#pragma once
// The one reader of a scenario's files, for the built-ins compiled in (ScenarioCatalogue)
// and a teacher's lesson folder (LessonFolder.h) alike: scenario.json ({"name", "summary",
// "runs", "views", "docks"}), each run's RUN.json (read and validated as `ampscope-cli run`
// reads a config), narrative.md and its links. Where the files come from, and which
// paths inside a run's config they may name, is the source's business; every rule about
// their contents is here, each problem sent to the sink with its file and line.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "scenarios/JsonLineIndex.h"
#include "scenarios/ScenarioCatalogue.h"
#include "scenarios/ScenarioProblems.h"

namespace ampscope {

class ScenarioFileSource {
public:
    virtual ~ScenarioFileSource() = default;
    // The bytes of `file` (a path relative to where the source reads, "amp-sanity/fp32.json"
    // or "fp32.json"), at most `limit` of them; nullopt once it told the sink why not.
    virtual std::optional<std::string> read(const std::string& file, std::uintmax_t limit, ProblemSink& sink) = 0;
    // The files a run's config names (data.path, model.path), checked and made usable
    // from any working directory; true when it changed the document. The built-ins name
    // none.
    virtual bool resolveConfigFiles(nlohmann::json& /*document*/, const std::string& /*file*/,
                                    const JsonLineIndex& /*lines*/, ProblemSink& /*sink*/) {
        return false;
    }
};

// A run's name is also its config's file name (NAME.json) and its folder under --out: a
// letter or digit, then letters, digits, '.', '_' and '-' (no '/', no "..", no spaces).
bool isRunName(const std::string& name);

// Reads prefix + "scenario.json", the runs' prefix + RUN.json and prefix + "narrative.md".
// expectedName: the name scenario.json must give ("" where any name does). nullopt when
// scenario.json itself does not read; otherwise the scenario, whole where the sink got no
// problem.
std::optional<Scenario> parseScenario(ScenarioFileSource& source, const std::string& prefix,
                                      const std::string& expectedName, ProblemSink& sink);

}  // namespace ampscope
