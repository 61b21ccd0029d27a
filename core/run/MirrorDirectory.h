#pragma once
// The local copy of a run (or a folder of runs) that lives on another machine: the
// same files, so that every reader, the follower, the window, reports and exports read
// it as they read any run directory, with their limits and checks unchanged.
//
// Contract:
// - Made in a new private folder (mode 0700) under the temporary directory:
//   TMP/ampscope-ssh-XXXXXX/NAME, NAME the remote folder's own name made file-safe, so
//   that titles and reports name the run as its machine does. The destructor removes
//   that whole folder: a copy of someone's run is not left behind.
// - Runs are "." (the folder itself) or subfolder names (isRemoteRunName); anything else
//   is refused (std::invalid_argument: the caller checked).
// - events.jsonl only grows by appendEvents, at the offset it has reached (offsets are
//   the resume point after a dropped connection); truncateEvents follows a remote file
//   that shrank. Whole files (config.json, narrative.md, summary.json) are written to a
//   temporary name and renamed into place, as the run's writer does, so a reader never
//   sees half of one; the caller writes summary.json only after every event before it.
// - A local write that fails is an InputError naming the file and the errno; more than
//   kMaxRuns runs is one too.
// - Used by one thread (the mirror's); readers on other threads only read the files.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "run/RemoteFollowScript.h"

namespace ampscope {

class MirrorDirectory {
public:
    // A folder that holds more runs than this is refused (InputError): no job has as many
    // ranks worth following, and a remote side must not fill the disk with folders.
    static constexpr std::size_t kMaxRuns = 4096;

    explicit MirrorDirectory(std::string_view remoteName);
    ~MirrorDirectory();
    MirrorDirectory(const MirrorDirectory&) = delete;
    MirrorDirectory& operator=(const MirrorDirectory&) = delete;

    const std::string& path() const { return path_; }
    void addRun(const std::string& run);
    std::int64_t eventsBytes(const std::string& run) const;
    void appendEvents(const std::string& run, const char* data, std::size_t size);
    void truncateEvents(const std::string& run, std::int64_t bytes);
    void writeFile(const std::string& run, std::string_view name, const std::string& content);
    std::int64_t bytesCopied() const { return bytesCopied_; }

    // Where each run stands, for the remote side to resume from.
    std::vector<RemoteRunResume> resume() const;

private:
    struct Run {
        std::string directory;
        int eventsFd = -1;
        RemoteRunResume state;
    };
    Run& run(const std::string& name);

    std::string root_;  // the private folder, removed with everything in it
    std::string path_;  // root_/NAME: the copy of the remote folder
    std::map<std::string, Run> runs_;
    std::int64_t bytesCopied_ = 0;
};

}  // namespace ampscope
