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
