#include "PrecisionMapCommand.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "HeadlessRunner.h"
#include "RequestedConfig.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "export/PrecisionMapCsv.h"
#include "probes/PrecisionMapText.h"
#include "run/EventSchema.h"
#include "run/RecordCodec.h"
#include "run/RunReader.h"

namespace ampscope::app {

namespace {

RunConfig mapConfig(const CliRequest& request) {
    RunConfig config = requestedConfig(request);
    if (config.train.max_steps > 0 && config.train.max_steps < request.mapStep)
        throw InputError("--step: " + std::to_string(request.mapStep) + " is past the run's last step (train.max_steps " +
                         std::to_string(config.train.max_steps) + ")");
    // Nothing after the mapped step is needed.
    config.train.max_steps = request.mapStep;
    config.probes.precision_map_steps = {request.mapStep};
    config.probes.precision_map_reference = request.mapReference;
    return config;
}

}  // namespace

int runPrecisionMapCommand(const CliRequest& request, std::FILE* out, std::FILE* err) {
    const RunConfig config = mapConfig(request);
    const HeadlessResult result = runHeadless(config, request.outDirectory, out, request.quiet);
    if (result.summary.status == run_status::kError) {
        std::fprintf(err, "ampscope-cli: %s\n",
                     result.errorMessage.empty() ? result.summary.error.c_str() : result.errorMessage.c_str());
        return exitCodeFor(result);
    }
    if (result.interrupted) return exitCodeFor(result);
    std::optional<PrecisionMapRecord> map;
    forEachRunRecord(request.outDirectory, [&](nlohmann::json& record) {
        if (record_codec::typeOf(record) == probe_record_type::kPrecisionMap) map = precisionMapRecordFromJson(record);
    });
    if (!map)
        throw InputError("--step: the run ended at step " + std::to_string(result.summary.steps) + ", before step " +
                         std::to_string(request.mapStep) + " (" + request.outDirectory + " holds the run)");
    const std::filesystem::path folder(request.outDirectory);
    PrecisionMapCsv csv((folder / "precision_map.csv").string(), (folder / "precision_map_modules.csv").string());
    csv.write(*map);
    csv.close();
    if (!request.quiet) {
        for (const auto& line : precisionMapSummary(*map)) std::fprintf(out, "%s\n", line.c_str());
        std::fprintf(out, "map: %s/precision_map.csv (%zu ops), precision_map_modules.csv; %.1f s\n",
                     request.outDirectory.c_str(), map->ops.size(), map->seconds);
    }
    return 0;
}

}  // namespace ampscope::app
