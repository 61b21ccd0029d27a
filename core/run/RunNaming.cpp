#include "run/RunNaming.h"

#include <sys/stat.h>

namespace ampscope {

std::string defaultRunName(const RunConfig& config) {
    return config.model.name + "-" + config.precision.mode;
}

RunConfig seedRunConfig(const RunConfig& config, const std::string& baseName, int k) {
    RunConfig run = config;
    run.seed = config.seed + static_cast<uint64_t>(k - 1);
    run.name = baseName + " seed " + std::to_string(run.seed);
    return run;
}

std::string seedRunFolder(const std::string& prefix, int k) { return prefix + "seed-" + std::to_string(k); }

std::string runName(const RunConfig& config) {
    return config.name.empty() ? defaultRunName(config) : config.name;
}

std::string fileSafeRunName(const std::string& name) {
    std::string safe;
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        // UTF-8 continuation bytes belong to the code point already replaced.
        if ((byte & 0xC0) == 0x80) continue;
        const bool kept = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                          (byte >= '0' && byte <= '9') || c == '-' || c == '_' || c == '.';
        safe += kept ? c : '-';
    }
    return safe.empty() ? "run" : safe;
}

std::string runTimestamp(std::time_t when) {
    std::tm local{};
    localtime_r(&when, &local);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H-%M-%S", &local);
    return buffer;
}

std::string newRunDirectory(const std::string& parent, const std::string& name, std::time_t when) {
    const std::string base = parent + "/" + runTimestamp(when) + "-" + fileSafeRunName(name);
    const auto exists = [](const std::string& path) {
        struct stat info {};
        return ::stat(path.c_str(), &info) == 0;
    };
    std::string candidate = base;
    for (int n = 2; exists(candidate); ++n) candidate = base + "-" + std::to_string(n);
    return candidate;
}

}  // namespace ampscope
