#pragma once
// Following a run on another machine over SSH: a thread keeps a local copy
// (MirrorDirectory) of the remote run, job folder of ranks or folder of runs up to date
// through the system's ssh (SshProcess) running a POSIX sh program there
// (RemoteFollowScript.h). Everything that reads runs (RunFollower, the window, reports,
// exports) reads the copy: local and remote runs share all of their record logic, and the
// remote side needs nothing but a shell and coreutils.
//
// Contract:
// - Only new bytes travel: each run's events.jsonl is sent from the offset the copy has
//   reached, on the first connection and after every reconnection; a torn last line
//   arrives as it is and waits, in the copy, for its end (the readers' rule).
// - The first connection's failures end the mirror at once (Failed), with one line
//   (sshFailureText): unknown host, refused connection, authentication failure, unknown
//   host key; and the remote side's refusals likewise, worded as the local reader words
//   them: no such run directory, a file and not a run directory, not a run directory,
//   permission denied, a symbolic link or FIFO where a run file should be.
// - Once connected, a connection that drops (ssh ends, or nothing arrives for
//   silenceSeconds) is retried with backoff (firstRetrySeconds, doubling up to
//   maxRetrySeconds), state Reconnecting; it resumes without losing or repeating a byte.
//   After giveUpSeconds without a connection it ends Failed ("connection lost ... not
//   regained"). What was copied stays.
// - follow = false copies what the remote run holds now and ends (Finished); follow =
//   true ends Finished once every run has its summary.json, else runs until stop().
// - waitUntilSynced() blocks until everything the remote side held when first measured
//   is in the copy (or the mirror ended): InputError with the failure's line if it failed.
// - stop() and the destructor end ssh and the thread; the destructor removes the copy.
// - status() may be called from any thread.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "run/MirrorDirectory.h"
#include "run/RemoteRunAddress.h"
#include "run/SshProcess.h"

namespace ampscope {

struct RemoteMirrorOptions {
    SshSettings ssh = SshSettings::fromEnvironment();
    bool follow = true;
    double pollSeconds = 0.25;         // the remote side's pause between passes
    double firstRetrySeconds = 0.5;
    double maxRetrySeconds = 15;
    double giveUpSeconds = 120;        // AMPSCOPE_SSH_RECONNECT_SECONDS when set
    double silenceSeconds = 20;        // no byte for this long: the connection is dead

    static RemoteMirrorOptions fromEnvironment();
};

class RemoteRunMirror {
public:
    enum class State { Connecting, Copying, Following, Reconnecting, Finished, Failed };
    struct Status {
        State state = State::Connecting;
        bool synced = false;           // the first copy is complete
        std::int64_t bytesCopied = 0;
        int reconnections = 0;
        std::string message;           // Failed: the one line; Reconnecting: the last failure
    };

    RemoteRunMirror(const RemoteRunAddress& address, RemoteMirrorOptions options);
    ~RemoteRunMirror();
    RemoteRunMirror(const RemoteRunMirror&) = delete;
    RemoteRunMirror& operator=(const RemoteRunMirror&) = delete;

    const RemoteRunAddress& address() const { return address_; }
    // The local copy's folder: a run directory, or a folder of runs.
    const std::string& localDirectory() const { return directory_.path(); }
    Status status() const;
    // progress(status) about every 100 ms while waiting.
    void waitUntilSynced(const std::function<void(const Status&)>& progress = {});
    void stop();

private:
    class Session;
    void run();
    void setStatus(const std::function<void(Status&)>& change);
    bool sleepUnlessStopped(double seconds);

    RemoteRunAddress address_;
    RemoteMirrorOptions options_;
    MirrorDirectory directory_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    Status status_;
    std::atomic<bool> stopRequested_{false};
    int wakeRead_ = -1, wakeWrite_ = -1;  // stop() wakes the thread's poll
    std::thread thread_;
};

const char* remoteMirrorStateName(RemoteRunMirror::State state);

// "host:path: " + what, the prefix of every line about a remote run.
std::string remoteRunMessage(const RemoteRunAddress& address, const std::string& what);

}  // namespace ampscope
