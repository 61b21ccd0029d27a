#pragma once
// The program that runs on the remote machine while a run is followed over SSH: POSIX
// sh and coreutils (wc, tail, head, cat, sleep), nothing installed, nothing left
// running (it ends when the connection does: it writes a heartbeat on every pass, and
// a write to a closed connection ends it). ssh runs `sh -s` and sends it as input.
//
// What it sends, on standard output, each message a header line (ASCII, at most
// kMaxHeaderBytes) and for DATA and FILE that many bytes after it:
//   AMPSCOPE-FOLLOW 1               first: the connection works (lines before it are a
//                                   login script's chatter and are skipped)
//   ERROR <code> [RUN NAME]         the end: nodir, notdir, norun (no config.json and
//                                   no runs in subfolders), denied (no permission),
//                                   link (a symbolic link where a run file is), notplain
//                                   (a FIFO or device there); RUN NAME say which file
//   RUN <run>                       a run found: "." (the folder itself) or a subfolder
//                                   name of [A-Za-z0-9._-] holding a config.json
//   FILE <run> <name> <bytes>       a whole file: config.json (once, first), narrative.md
//                                   (once, when it appears), summary.json (once, last:
//                                   after every byte of events.jsonl it follows)
//   DATA <run> <offset> <bytes>     bytes of events.jsonl from offset (at most kChunkBytes)
//   SHRANK <run> <bytes>            events.jsonl is shorter than what was sent
//   SYNCED                          every run has been sent as it was when measured
//   TICK                            a pass found nothing new (the heartbeat)
//   DONE                            every run has its summary: nothing more will come
//   END                             a one-pass copy (follow = false) is complete
// A file that changes size while it is sent is padded with zero bytes to the size
// announced (the writer only appends and renames whole files; only a person can do
// that), so the framing never breaks.
//
// Where to resume: each run's bytes of events.jsonl already held and the files
// already received, so that after a dropped connection only new bytes travel.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

namespace remote_follow {
inline constexpr std::string_view kHello = "AMPSCOPE-FOLLOW 1";
inline constexpr std::size_t kMaxHeaderBytes = 4096;
inline constexpr std::int64_t kChunkBytes = 4 << 20;
inline constexpr std::string_view kRemoteCommand = "sh -s";
}  // namespace remote_follow

struct RemoteRunResume {
    std::string run;  // "." or a subfolder name
    std::int64_t eventsBytes = 0;
    bool haveConfig = false;
    bool haveNarrative = false;
    bool haveSummary = false;
};

struct RemoteFollowRequest {
    std::string path;     // the remote folder (absolute, or relative to the home directory)
    bool follow = true;   // false: one pass, then END
    double pollSeconds = 0.25;
    std::vector<RemoteRunResume> resume;
};

// The script, with the request written into its first lines as sh literals.
std::string remoteFollowScript(const RemoteFollowRequest& request);

// True for "." and for the subfolder names the script sends (so they are safe as one
// path component here too).
bool isRemoteRunName(std::string_view name);

}  // namespace ampscope
