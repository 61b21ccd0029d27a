#pragma once
// How runs are named, in one place for the window, the CLI and ampscope's headless path:
//   runName:        the config's name, or "<model>-<mode>" when it has none (what the
//                   window's title, the config panel's placeholder and file names show);
//   newRunDirectory: <parent>/<yyyy-MM-ddTHH-mm-ss>-<name>, local time, with <name>
//                   reduced to characters that are safe in any file system, and "-2",
//                   "-3", ... appended while the directory already exists, so that a
//                   new run never lands in an old one (the writer would refuse it anyway).
// No torch, no Qt.
#include <ctime>
#include <string>

#include "config/RunConfig.h"

namespace ampscope {

// "<model>-<mode>": the name of a run whose config leaves `name` empty.
std::string defaultRunName(const RunConfig& config);

// config.name, or defaultRunName(config) when it is empty.
std::string runName(const RunConfig& config);

// Seed K (1-based) of a config trained with several seeds (`run --seeds`, `prescribe`, a
// scenario's "seeds", the window's Seeds field): seed = config.seed + K - 1 (consecutive
// seeds are fine: each run fans its seed out through SplitMix64, core/data/SeedStreams.h,
// so seed S and S + 1 draw unrelated streams), named "<baseName> seed S", which is what
// the seed groups' names take off again (stats::seedGroupName).
RunConfig seedRunConfig(const RunConfig& config, const std::string& baseName, int k);
// Its folder beside the other seeds: prefix + "seed-K" ("seed-2", "fp32-seed-2").
std::string seedRunFolder(const std::string& prefix, int k);

// ASCII letters, digits, '-', '_' and '.' are kept; every other character (one per
// UTF-8 code point) becomes '-'. An empty name becomes "run".
std::string fileSafeRunName(const std::string& name);

// "2026-01-02T03-04-05": `when` in local time, without characters file systems refuse.
std::string runTimestamp(std::time_t when);

// The directory a new run named `name` records into (see the top of this file). Only
// looks at the file system; creates nothing.
std::string newRunDirectory(const std::string& parent, const std::string& name,
                            std::time_t when = std::time(nullptr));

}  // namespace ampscope
