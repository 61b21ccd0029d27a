#include "common/Text.h"

#include <cmath>
#include <cstdio>

namespace ampscope {

std::string formatBytes(int64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (std::fabs(value) >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return buffer;
}

std::string formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "--";
    char buffer[32];
    if (seconds < 60.0) {
        std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
        return buffer;
    }
    const auto total = static_cast<int64_t>(std::llround(seconds));
    const int64_t hours = total / 3600, minutes = (total / 60) % 60, secs = total % 60;
    if (hours > 0)
        std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", static_cast<long long>(hours),
                      static_cast<long long>(minutes), static_cast<long long>(secs));
    else
        std::snprintf(buffer, sizeof buffer, "%lld:%02lld", static_cast<long long>(minutes),
                      static_cast<long long>(secs));
    return buffer;
}

std::string formatNumber(double value, int significant) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*g", significant, value);
    return buffer;
}

}  // namespace ampscope
