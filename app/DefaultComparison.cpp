#include "DefaultComparison.h"

#include <ctime>

#include "common/Text.h"

namespace ampscope::app {

std::vector<NamedConfig> defaultComparisonConfigs() {
    std::vector<NamedConfig> runs;
    for (const char* mode : {"fp32", "bf16", "fp16"}) {
        RunConfig c;  // defaults: fashion_mnist, simple_cnn, Adam 1e-3, batch 128, 2 epochs
        c.precision.mode = mode;
        c.name = std::string("fashion-mnist-") + mode;
        runs.push_back({mode, c});
    }
    return runs;
}

std::string timestampedDirectory(const std::string& parent) {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H-%M-%S", &local);
    return parent + "/" + buffer;
}

void printComparisonTable(const std::vector<NamedConfig>& runs, const std::vector<HeadlessResult>& results,
                          std::FILE* out) {
    std::fprintf(out, "\n%-6s %-9s %-8s %10s %10s %12s %10s %8s %8s\n", "mode", "how", "status", "samples/s",
                 "wall", "peak memory", "train loss", "val acc", "skipped");
    for (size_t i = 0; i < results.size() && i < runs.size(); ++i) {
        const auto& s = results[i].summary;
        std::fprintf(out, "%-6s %-9s %-8s %10.1f %10s %12s %10s %8s %8lld\n", runs[i].name.c_str(),
                     s.emulated ? "emulated" : "real", s.status.c_str(), s.samplesPerSecond,
                     formatDuration(s.wallSeconds).c_str(), formatBytes(s.peakMemoryBytes).c_str(),
                     formatNumber(s.finalTrainLoss).c_str(), formatNumber(s.valAccuracy).c_str(),
                     static_cast<long long>(s.skippedSteps));
    }
}

}  // namespace ampscope::app
