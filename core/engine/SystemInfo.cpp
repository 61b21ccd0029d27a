#include "engine/SystemInfo.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace ampscope {

std::string cpuModelName() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                auto name = line.substr(colon + 1);
                const auto first = name.find_first_not_of(" \t");
                return first == std::string::npos ? name : name.substr(first);
            }
        }
    }
    return "unknown CPU";
}

int64_t peakResidentBytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

bool resetPeakResidentBytes() {
    std::ofstream clearRefs("/proc/self/clear_refs");
    if (!clearRefs) return false;
    clearRefs << "5";
    clearRefs.flush();
    return static_cast<bool>(clearRefs);
}

int64_t currentResidentBytes() {
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

ProcessMemory readProcessMemory() {
    ProcessMemory memory;
    std::ifstream status("/proc/self/status");
    std::string line;
    auto kib = [](const std::string& text) {
        // "VmRSS:\t   12345 kB"
        const auto digits = text.find_first_of("0123456789");
        return digits == std::string::npos ? int64_t{0} : std::stoll(text.substr(digits)) * 1024;
    };
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) memory.residentBytes = kib(line);
        if (line.rfind("VmHWM:", 0) == 0) memory.peakResidentBytes = kib(line);
    }
    return memory;
}

int hardwareThreads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace ampscope
