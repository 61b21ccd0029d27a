#include "scenarios/LessonFolder.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/InputError.h"
#include "common/Sha256.h"
#include "config/ConfigText.h"
#include "scenarios/ScenarioParser.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

// `path` (canonical) is `root` (canonical) or lies under it, compared by components so
// that /lesson-other is not inside /lesson.
bool isInside(const fs::path& root, const fs::path& path) {
    auto at = path.begin();
    for (const auto& part : root) {
        if (at == path.end() || *at != part) return false;
        ++at;
    }
    return true;
}

std::string sizeText(std::uintmax_t bytes) {
    if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
    return std::to_string(bytes) + " bytes";
}

// The folder's files for the scenario parser, each checked to stay inside the folder and
// within its size before a byte of it is read.
class FolderFiles : public ScenarioFileSource {
public:
    explicit FolderFiles(fs::path root) : root_(std::move(root)) {}

    std::optional<std::string> read(const std::string& file, std::uintmax_t limit, ProblemSink& sink) override {
        std::error_code error;
        const fs::path path = root_ / file;
        if (!fs::exists(fs::symlink_status(path, error))) {
            sink.add(file, 0, "missing (a lesson folder holds scenario.json, narrative.md and RUN.json for each run)");
            return std::nullopt;
        }
        const fs::path real = fs::weakly_canonical(path, error);
        if (error || !isInside(root_, real)) {
            sink.add(file, 0, "a link to a file outside the lesson folder");
            return std::nullopt;
        }
        if (!fs::is_regular_file(real, error)) {
            sink.add(file, 0, "not a regular file");
            return std::nullopt;
        }
        const std::uintmax_t size = fs::file_size(real, error);
        if (error) {
            sink.add(file, 0, "cannot be read (" + error.message() + ")");
            return std::nullopt;
        }
        if (size > limit)
            sink.refuse(file, 0, std::to_string(size) + " bytes; a lesson's " +
                                     (file.size() > 5 && file.ends_with(".json") && file != "scenario.json"
                                          ? std::string("run config") : file) +
                                     " may be at most " + sizeText(limit));
        std::ifstream in(real, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        if (!in.good() && !in.eof()) {
            sink.add(file, 0, "cannot be read");
            return std::nullopt;
        }
        return text.str().substr(0, limit);  // a file that grew since its size was taken
    }

    // data.path and model.path: relative to the folder, inside it, there; made absolute
    // (canonical) so that the run finds them from any working directory.
    bool resolveConfigFiles(nlohmann::json& document, const std::string& file, const JsonLineIndex& lines,
                            ProblemSink& sink) override {
        bool changed = false;
        for (const char* section : {"data", "model"}) {
            if (!document.is_object() || !document.contains(section) || !document[section].is_object()) continue;
            nlohmann::json& node = document[section];
            if (!node.contains("path") || !node["path"].is_string()) continue;  // the config's parser says so
            const std::string named = node["path"].get<std::string>();
            if (named.empty()) continue;
            const std::string field = std::string(section) + ".path";
            const std::size_t line = lines.lineOf(field);
            const std::string what = field + " " + config_text::quoted(named);
            const fs::path relative(named);
            if (relative.is_absolute()) {
                sink.add(file, line, what + " is an absolute path: a lesson names its files relative to its folder");
                continue;
            }
            bool climbs = false;
            for (const auto& part : relative) climbs = climbs || part == "..";
            if (climbs) {
                sink.add(file, line, what + " climbs out of the lesson folder (\"..\"): a lesson names files inside it");
                continue;
            }
            std::error_code error;
            const fs::path real = fs::weakly_canonical(root_ / relative, error);
            if (error || !isInside(root_, real)) {
                sink.add(file, line, what + " is a link to a file outside the lesson folder");
                continue;
            }
            if (!fs::exists(real, error)) {
                sink.add(file, line, what + " names nothing in the lesson folder");
                continue;
            }
            node["path"] = real.string();
            changed = true;
        }
        return changed;
    }

private:
    fs::path root_;
};

}  // namespace

LessonCheck checkLessonFolder(const std::string& path) {
    LessonCheck check;
    check.folder = path;
    std::error_code error;
    if (!fs::is_directory(path, error))
        throw InputError(path + ": not a lesson folder (" +
                         (fs::exists(path, error) ? std::string("not a directory") : std::string("no such directory")) +
                         ")");
    const fs::path root = fs::canonical(path, error);
    if (error) throw InputError(path + ": cannot open (" + error.message() + ")");
    FolderFiles files(root);
    ProblemSink sink(ProblemSink::Mode::Collect);
    try {
        std::optional<Scenario> lesson = parseScenario(files, "", "", sink);
        check.problems = sink.problems();
        if (lesson && check.problems.empty()) {
            lesson->folder = root.string();
            check.lesson = std::move(lesson);
        }
    } catch (const LessonRefused& refused) {
        check.problems = {refused.problem};
    }
    return check;
}

Scenario loadLessonFolder(const std::string& path, const std::string& shownAs) {
    LessonCheck check = checkLessonFolder(path);
    if (check.problems.empty()) return std::move(*check.lesson);
    const std::string& shown = shownAs.empty() ? path : shownAs;
    const std::string folder = shownAs.empty() ? (path.ends_with("/") ? path : path + "/") : shownAs + ": ";
    std::string line = folder + check.problems.front().text();
    if (check.problems.size() > 1)
        line += " (and " + std::to_string(check.problems.size() - 1) + " more: ampscope-cli check-lesson " + shown +
                " lists them)";
    throw InputError(line);
}

std::vector<LessonModel> lessonModels(const std::vector<NamedRunConfig>& runs) {
    std::vector<LessonModel> models;
    for (const NamedRunConfig& run : runs)
        if (run.config.model.name == "torchscript")
            models.push_back({run.name, run.config.model.path, sha256OfFile(run.config.model.path)});
    return models;
}

}  // namespace ampscope
