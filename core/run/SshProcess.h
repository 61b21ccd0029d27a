#pragma once
// One run of the system's OpenSSH client (`ssh`), so that the user's ~/.ssh/config,
// keys, agent, ProxyJump and ControlMaster apply as they do in a terminal. core has no
// Qt, so the process is spawned with POSIX calls here.
//
// Contract:
// - The command line: ssh -T -o BatchMode=yes (never a prompt: the window has no
//   terminal, and a CLI run must not wait for one) -o ConnectTimeout, ServerAliveInterval
//   and ServerAliveCountMax from SshSettings (a silent connection ends within
//   interval x count seconds), -o ClearAllForwardings=yes, ForwardAgent=no, ForwardX11=no
//   and PermitLocalCommand=no (a follower needs none of them, and the user's own
//   LocalForward would collide with their interactive session's), -F the settings'
//   config file when set, -l user, -p port, then "--", the host and `remoteCommand`.
// - `input` is the remote command's standard input, whole (an unlinked temporary file:
//   no pipe to keep fed, no SIGPIPE).
// - ssh runs in a process group of its own (ProxyJump's helper ssh included): terminate()
//   and the destructor end the whole group (SIGTERM, then SIGKILL after a grace period)
//   and reap it. A ControlPersist master, which the user's config asked to outlive the
//   command, detaches from the group and stays, as it would after a terminal's ssh.
// - A program that cannot be started is an InputError ("ssh: cannot run 'ssh' (...)").
// - stderr is kept (its last kMaxErrorBytes); failureText() turns it and the exit status
//   into one line (sshFailureText).
// - Not thread-safe; one owner (the thread that started it).
#include <string>
#include <sys/types.h>

#include "run/RemoteRunAddress.h"

namespace ampscope {

struct SshSettings {
    std::string program = "ssh";
    std::string configFile;  // -F FILE; empty: ssh's own (~/.ssh/config, /etc/ssh/ssh_config)
    int connectTimeoutSeconds = 10;
    int aliveIntervalSeconds = 5;
    int aliveCountMax = 3;

    // AMPSCOPE_SSH (the program) and AMPSCOPE_SSH_CONFIG (an ssh_config for -F) when set.
    static SshSettings fromEnvironment();
};

class SshProcess {
public:
    static constexpr std::size_t kMaxErrorBytes = 8192;

    SshProcess(const RemoteRunAddress& address, const SshSettings& settings,
               const std::string& remoteCommand, const std::string& input);
    ~SshProcess();
    SshProcess(const SshProcess&) = delete;
    SshProcess& operator=(const SshProcess&) = delete;

    int outputFd() const { return output_; }  // non-blocking
    int errorFd() const { return error_; }    // non-blocking; readErrors() drains it
    // Reads what stderr holds now; false once it reached its end.
    bool readErrors();
    // Reaps ssh when it has exited (never blocks); true once it has.
    bool exited();
    int exitStatus() const { return status_; }  // as a shell says it: 255 is ssh's own failure
    void terminate();

    const std::string& errors() const { return errors_; }

private:
    pid_t pid_ = -1;
    int output_ = -1;
    int error_ = -1;
    bool reaped_ = false;
    int status_ = -1;
    std::string errors_;
};

// What went wrong, in one line, from ssh's stderr and exit status, for a connection to
// `address`: an unknown host, a refused or timed-out connection, keys refused, a host
// key that is not known or has changed, or else ssh's own last line.
std::string sshFailureText(const RemoteRunAddress& address, const std::string& errors, int status);

}  // namespace ampscope
