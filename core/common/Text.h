#pragma once
// Human-readable formatting shared by the CLI, the UI and reports.
#include <cstdint>
#include <string>

namespace ampscope {

std::string formatBytes(int64_t bytes);        // "1.5 GiB"
std::string formatDuration(double seconds);    // "1:02:03", "4:05", "12.3 s"
std::string formatNumber(double value, int significant = 4);  // shortest of %g style

}  // namespace ampscope
