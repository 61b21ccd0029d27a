#include "SensitivityCommand.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "RequestedConfig.h"
#include "common/InputError.h"
#include "engine/SensitivityScan.h"
#include "probes/SensitivityText.h"

namespace ampscope::app {

namespace {

// DIR is made when missing; one that already holds a sensitivity result is refused, so a
// second command never overwrites the first's numbers.
std::filesystem::path prepareOutput(const std::string& directory) {
    const std::filesystem::path folder(directory);
    std::error_code error;
    if (std::filesystem::exists(folder / "sensitivity.jsonl", error))
        throw InputError("--out: " + directory + " already holds a sensitivity result (sensitivity.jsonl)");
    std::filesystem::create_directories(folder, error);
    if (error || !std::filesystem::is_directory(folder))
        throw InputError("--out: cannot make the folder " + directory + " (" + error.message() + ")");
    return folder;
}

std::ofstream openForWriting(const std::filesystem::path& file) {
    std::ofstream stream(file);
    if (!stream) throw InputError("--out: cannot write " + file.string());
    return stream;
}

}  // namespace

int runSensitivityCommand(const CliRequest& request, std::FILE* out, std::FILE*) {
    const RunConfig config = requestedConfig(request);
    const std::filesystem::path folder = prepareOutput(request.outDirectory);
    // Each pass is on disk as soon as it ends: an interrupted command keeps them.
    std::ofstream passes = openForWriting(folder / "sensitivity.jsonl");
    SensitivityScanRequest scanRequest{request.sensitivityFormats, request.sensitivitySteps, request.sensitivityEvery};
    const SensitivityScan scan = scanSensitivity(config, scanRequest, [&](const SensitivityRecord& record) {
        passes << toJson(record).dump() << '\n' << std::flush;
        if (!request.quiet)
            std::fprintf(out, "step %lld: measured %zu layers in %zu formats (%.1f s)\n",
                         static_cast<long long>(record.step), record.layers.size(), record.formats.size(),
                         record.seconds);
    });
    openForWriting(folder / "sensitivity.json") << toJson(scan.combined).dump(1) << '\n';
    const auto table = sensitivityTable(scan.combined, scan.passes.size());
    std::ofstream text = openForWriting(folder / "sensitivity.txt");
    for (const auto& line : table) {
        text << line << '\n';
        if (!request.quiet) std::fprintf(out, "%s\n", line.c_str());
    }
    if (!request.quiet) std::fprintf(out, "\nwritten: %s/sensitivity.{txt,json,jsonl}\n", request.outDirectory.c_str());
    return 0;
}

}  // namespace ampscope::app
