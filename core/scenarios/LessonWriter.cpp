#include "scenarios/LessonWriter.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "scenarios/LessonFolder.h"
#include "scenarios/ScenarioParser.h"
#include "scenarios/ScenarioViews.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

// `shown` as a lesson run name (ScenarioParser.h's isRunName), not one of `taken`.
std::string runNameFor(const std::string& shown, std::set<std::string>& taken) {
    std::string name;
    for (const char c : shown) {
        const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
        name.push_back(plain ? c : '-');
    }
    if (name.size() > 56) name.resize(56);  // room for "-NN" under the 64 a run name may have
    if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front()))) name = "run" + name;
    std::string unique = name;
    for (int n = 2; taken.count(unique); ++n) unique = name + "-" + std::to_string(n);
    taken.insert(unique);
    return unique;
}

void writeText(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw InputError(path.string() + ": cannot write");
}

// The lesson's files: each source copied once, under a name not yet used in its folder.
class LessonFiles {
public:
    explicit LessonFiles(fs::path root) : root_(std::move(root)) {}

    // `source` copied into `folder`/ of the lesson: its path relative to the lesson.
    std::string copyFile(const std::string& folder, const std::string& source) {
        const std::string key = folder + "\n" + fs::weakly_canonical(source).string();
        if (const auto it = copied_.find(key); it != copied_.end()) return it->second;
        std::error_code error;
        if (!fs::is_regular_file(source, error))
            throw InputError(source + ": not a file, so the lesson cannot hold a copy of it");
        const std::string relative = freeName(folder, fs::path(source).filename().string());
        fs::create_directories(root_ / folder, error);
        if (error || !fs::copy_file(source, root_ / relative, error) || error)
            throw InputError(source + ": cannot be copied into the lesson (" + error.message() + ")");
        copied_[key] = relative;
        return relative;
    }

    // An IDX folder (MNIST's four files): its regular files into `folder`/NAME/.
    std::string copyFolder(const std::string& folder, const std::string& source) {
        const std::string key = folder + "\n" + fs::weakly_canonical(source).string();
        if (const auto it = copied_.find(key); it != copied_.end()) return it->second;
        std::error_code error;
        if (!fs::is_directory(source, error))
            throw InputError(source + ": not a folder, so the lesson cannot hold a copy of it");
        const std::string relative = freeName(folder, fs::path(source).filename().string());
        fs::create_directories(root_ / relative, error);
        for (const auto& entry : fs::directory_iterator(source, error)) {
            if (!entry.is_regular_file()) continue;
            fs::copy_file(entry.path(), root_ / relative / entry.path().filename(), error);
            if (error) break;
        }
        if (error) throw InputError(source + ": cannot be copied into the lesson (" + error.message() + ")");
        copied_[key] = relative;
        return relative;
    }

private:
    std::string freeName(const std::string& folder, std::string name) {
        if (name.empty() || name == "." || name == "..") name = "file";
        std::string relative = folder + "/" + name;
        for (int n = 2; used_.count(relative); ++n) relative = folder + "/" + std::to_string(n) + "-" + name;
        used_.insert(relative);
        return relative;
    }

    fs::path root_;
    std::map<std::string, std::string> copied_;
    std::set<std::string> used_;
};

// What the runs read, inside the lesson; the configs name it relative to the folder.
RunConfig withOwnFiles(RunConfig config, LessonFiles& files) {
    if (!config.data.path.empty()) {
        config.data.path = config.data.dataset == "tensors" ? files.copyFile("data", config.data.path)
                                                            : files.copyFolder("data", config.data.path);
    }
    if (config.model.name == "torchscript" && !config.model.path.empty())
        config.model.path = files.copyFile("models", config.model.path);
    return config;
}

std::string narrativeFor(const LessonDraft& draft, const nlohmann::json& views) {
    std::string text = "# " + draft.name + "\n\n" + draft.summary + "\n\n";
    text += "<!-- What should the class look at, and why? Write it here; each link below shows its view. -->\n\n";
    for (const nlohmann::json& view : views)
        text += "- [" + view["dock"].get<std::string>() + " of " + view["run"].get<std::string>() + "](view:" +
                view["id"].get<std::string>() + "): \n";
    return text;
}

}  // namespace

Scenario writeLessonFolder(const std::string& folder, const LessonDraft& draft) {
    if (draft.runs.empty()) throw InputError(folder + ": a lesson needs a run (the Runs list is empty)");
    if (draft.name.empty() || draft.name.find('\n') != std::string::npos)
        throw InputError(folder + ": a lesson's name is one line of text");
    std::error_code error;
    const bool existed = fs::exists(folder, error);
    if (existed && (!fs::is_directory(folder, error) || !fs::is_empty(folder, error)))
        throw InputError(folder + ": not an empty folder (a lesson is written into a new one)");
    fs::create_directories(folder, error);
    if (error) throw InputError(folder + ": cannot be made (" + error.message() + ")");
    const fs::path root(folder);
    try {
        LessonFiles files(root);
        std::set<std::string> taken;
        nlohmann::json runs = nlohmann::json::array();
        std::string focused;
        for (const LessonDraft::Run& run : draft.runs) {
            const std::string name = runNameFor(run.name, taken);
            if (focused.empty() || run.name == draft.focusedRun) focused = name;  // the first run if none is
            runs.push_back(name);
            writeText(root / (name + ".json"), configToJson(withOwnFiles(run.config, files)).dump(2) + "\n");
        }
        nlohmann::json docks = nlohmann::json::array();
        nlohmann::json views = nlohmann::json::array();
        const std::vector<std::string>& known = scenarioDockIds();
        for (const std::string& dock : draft.docks) {
            if (std::find(known.begin(), known.end(), dock) == known.end() || docks.size() >= 16) continue;
            docks.push_back(dock);
            views.push_back({{"id", dock}, {"run", focused}, {"dock", dock}});
        }
        const nlohmann::json scenario = {{"name", draft.name}, {"summary", draft.summary}, {"runs", runs},
                                         {"docks", docks}, {"views", views}};
        writeText(root / "scenario.json", scenario.dump(2) + "\n");
        writeText(root / "narrative.md", narrativeFor(draft, views));
        return loadLessonFolder(folder);
    } catch (...) {
        if (existed) {
            for (const auto& entry : fs::directory_iterator(root, error)) fs::remove_all(entry.path(), error);
        } else {
            fs::remove_all(root, error);
        }
        throw;
    }
}

}  // namespace ampscope
