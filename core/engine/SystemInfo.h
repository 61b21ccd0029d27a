#pragma once
// Facts about the machine for status lines, summaries and reports (plain C++).
#include <cstdint>
#include <string>

namespace ampscope {

std::string cpuModelName();         // /proc/cpuinfo "model name", or "unknown CPU"
int64_t peakResidentBytes();        // getrusage ru_maxrss of this process
// Resets the process's peak RSS to its current RSS (Linux: "5" into
// /proc/self/clear_refs), so that runs done one after another in one process each
// report their own peak. False where the kernel does not allow it (the peak then
// stays cumulative).
bool resetPeakResidentBytes();
int64_t currentResidentBytes();     // /proc/self/statm resident pages
int hardwareThreads();              // at least 1

// /proc/self/status: VmRSS (resident now) and VmHWM (peak resident), in bytes;
// 0 where the file or the line is missing (not Linux).
struct ProcessMemory {
    int64_t residentBytes = 0;
    int64_t peakResidentBytes = 0;
};
ProcessMemory readProcessMemory();

}  // namespace ampscope
