#pragma once
// How large a lesson folder may be (LessonFolder.h): the one definition of each limit.
// A lesson comes from someone else, so every file is size-checked before it is read and
// every list counted before its entries are looked at: a 50 MB narrative or a
// scenario.json naming 10^5 runs is refused in one line at once, instead of being read,
// parsed and checked run by run (and, for runs, trained one after another). The values are
// generous: the largest built-in scenario.json is under 2 KiB, its narrative under 4 KiB,
// its run configs under 2 KiB, and it has 3 runs and 6 views.
#include <cstddef>
#include <cstdint>

namespace ampscope::lesson_limits {

inline constexpr std::uintmax_t kMaxScenarioJsonBytes = 1024 * 1024;  // scenario.json
inline constexpr std::uintmax_t kMaxNarrativeBytes = 1024 * 1024;     // narrative.md
inline constexpr std::uintmax_t kMaxRunConfigBytes = 1024 * 1024;     // each RUN.json
inline constexpr std::size_t kMaxRuns = 64;    // a lesson compares a few runs, not a sweep
inline constexpr int kMaxSeedsPerRun = 16;     // a band of seeds; more is a benchmark, not a lesson
inline constexpr std::size_t kMaxViews = 256;  // a narrative links a few dozen views at most
inline constexpr std::size_t kMaxDocks = 64;   // more than the window has docks

// A lesson in one file (LessonArchive.h): the zip itself, how many files it holds, and
// what they inflate to, each file and all together; checked on the zip's directory before
// a byte is inflated. A lesson's own data (a safetensors file) is most of its size: a
// class's dataset of tens of MB fits many times over.
inline constexpr std::uintmax_t kMaxLessonFileBytes = 256ull * 1024 * 1024;
inline constexpr std::size_t kMaxLessonFileMembers = 1024;
inline constexpr std::uintmax_t kMaxLessonFileContentBytes = 512ull * 1024 * 1024;

}  // namespace ampscope::lesson_limits
