#pragma once
// The lab's default: FashionMNIST, simple CNN, fp32 vs bf16 vs fp16 (+ dynamic
// scaler), a standard mixed-precision sanity exercise. Without a display, ampscope runs it
// headless and prints the side-by-side table and where the runs went.
#include <cstdio>
#include <string>
#include <vector>

#include "HeadlessRunner.h"
#include "config/RunConfig.h"

namespace ampscope::app {

struct NamedConfig {
    std::string name;
    RunConfig config;
};

std::vector<NamedConfig> defaultComparisonConfigs();

// "runs/2026-11-21T05-40-00": a fresh directory name under `parent`.
std::string timestampedDirectory(const std::string& parent);

void printComparisonTable(const std::vector<NamedConfig>& runs, const std::vector<HeadlessResult>& results,
                          std::FILE* out);

}  // namespace ampscope::app
