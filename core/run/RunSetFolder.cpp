#include "run/RunSetFolder.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <tuple>

#include "run/EventSchema.h"
#include "run/RunLifecycleRecords.h"
#include "run/RunReader.h"

namespace ampscope {

namespace {

bool holdsConfig(const std::string& dir) {
    struct stat info {};
    const std::string config = dir + "/" + std::string(kConfigFileName);
    return ::lstat(config.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// run_start's "time" (ISO 8601, UTC: sorts as text); empty when it cannot be read.
std::string startTime(const std::string& dir) {
    std::ifstream events(dir + "/" + std::string(kEventsFileName));
    std::string first;
    if (!events || !std::getline(events, first)) return {};
    const std::optional<RunStartRecord> start = runStartFromJson(nlohmann::json::parse(first, nullptr, false));
    return start ? start->time : std::string();
}

}  // namespace

std::vector<std::string> runSetDirectories(const std::string& folder) {
    if (std::vector<std::string> ranks = rankRunDirectories(folder); !ranks.empty()) return ranks;
    if (holdsConfig(folder)) return {folder};
    struct Found {
        std::string time;
        std::filesystem::file_time_type written;
        std::string path;
    };
    std::vector<Found> found;
    std::error_code error;
    for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end;
         it.increment(error)) {
        std::error_code statError;
        if (it->is_symlink(statError) || !it->is_directory(statError)) continue;
        const std::string path = it->path().string();
        if (!holdsConfig(path)) continue;
        std::error_code timeError;
        const auto written = std::filesystem::last_write_time(path + "/" + std::string(kConfigFileName), timeError);
        found.push_back({startTime(path), written, path});
    }
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
        return std::tie(a.time, a.written, a.path) < std::tie(b.time, b.written, b.path);
    });
    std::vector<std::string> paths;
    for (Found& f : found) paths.push_back(std::move(f.path));
    return paths;
}

}  // namespace ampscope
