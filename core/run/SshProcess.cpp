#include "run/SshProcess.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "common/InputError.h"
#include "run/RunFiles.h"

namespace ampscope {
namespace {

constexpr int kTerminateGraceMilliseconds = 2000;

// An unlinked temporary file holding `text`, positioned at its start.
int inputFile(const std::string& text) {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/ampscope-ssh-XXXXXX";
    const int fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) throw InputError("ssh: cannot make a temporary file in " + path + " (" +
                                 runfiles::errnoText(errno) + ")");
    ::unlink(path.c_str());
    if (runfiles::writeAll(fd, text.data(), text.size()) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
        const int error = errno;
        ::close(fd);
        throw InputError("ssh: cannot write a temporary file (" + runfiles::errnoText(error) + ")");
    }
    return fd;
}

// Descriptor 3 in the child: where it says why exec failed (closed by a successful exec).
constexpr int kExecReportFd = 3;

void closeInheritedDescriptors() {
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, kExecReportFd + 1U, ~0U, 0U) == 0) return;
#endif
    const long limit = std::min<long>(::sysconf(_SC_OPEN_MAX), 65536);
    for (int fd = kExecReportFd + 1; fd < limit; ++fd) ::close(fd);
}

std::vector<std::string> commandLine(const RemoteRunAddress& address, const SshSettings& settings,
                                     const std::string& remoteCommand) {
    std::vector<std::string> args{settings.program, "-T",
                                  "-o", "BatchMode=yes",
                                  "-o", "ConnectTimeout=" + std::to_string(settings.connectTimeoutSeconds),
                                  "-o", "ServerAliveInterval=" + std::to_string(settings.aliveIntervalSeconds),
                                  "-o", "ServerAliveCountMax=" + std::to_string(settings.aliveCountMax),
                                  "-o", "ClearAllForwardings=yes",
                                  "-o", "ForwardAgent=no",
                                  "-o", "ForwardX11=no",
                                  "-o", "PermitLocalCommand=no"};
    if (!settings.configFile.empty()) args.insert(args.end(), {"-F", settings.configFile});
    if (!address.user.empty()) args.insert(args.end(), {"-l", address.user});
    if (address.port > 0) args.insert(args.end(), {"-p", std::to_string(address.port)});
    args.insert(args.end(), {"--", address.host, remoteCommand});
    return args;
}

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

// The last non-empty line of ssh's stderr.
std::string lastLine(const std::string& errors) {
    std::size_t end = errors.find_last_not_of("\r\n ");
    if (end == std::string::npos) return {};
    const std::size_t start = errors.rfind('\n', end);
    return errors.substr(start == std::string::npos ? 0 : start + 1,
                         end + 1 - (start == std::string::npos ? 0 : start + 1));
}

std::string hostAndPort(const RemoteRunAddress& address) {
    return address.host + (address.port > 0 ? " port " + std::to_string(address.port) : "");
}

// Where ssh really connected ("ssh: connect to host 10.0.0.5 port 22: Connection
// refused"): an alias of ssh_config says less than the address it stands for.
std::string connectedTo(const RemoteRunAddress& address, const std::string& errors) {
    constexpr std::string_view kConnect = "connect to host ";
    const std::size_t start = errors.find(kConnect);
    if (start == std::string::npos) return hostAndPort(address);
    const std::size_t from = start + kConnect.size();
    const std::size_t end = errors.find(": ", from);
    const std::size_t newline = errors.find('\n', from);
    if (end == std::string::npos || (newline != std::string::npos && newline < end)) return hostAndPort(address);
    return errors.substr(from, end - from);
}

}  // namespace

SshSettings SshSettings::fromEnvironment() {
    SshSettings settings;
    if (const char* program = std::getenv("AMPSCOPE_SSH"); program && *program) settings.program = program;
    if (const char* config = std::getenv("AMPSCOPE_SSH_CONFIG"); config && *config)
        settings.configFile = config;
    return settings;
}

SshProcess::SshProcess(const RemoteRunAddress& address, const SshSettings& settings,
                       const std::string& remoteCommand, const std::string& input) {
    const std::vector<std::string> args = commandLine(address, settings, remoteCommand);
    std::vector<char*> argv;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    const int in = inputFile(input);
    int out[2], err[2], execFailed[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw InputError("ssh: cannot make a pipe");
    ::pipe2(err, O_CLOEXEC);
    ::pipe2(execFailed, O_CLOEXEC);
    const pid_t pid = ::fork();
    if (pid == 0) {
        // The child: only async-signal-safe calls until exec.
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the follower's thread died: so does ssh
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGPIPE, SIG_DFL);
        ::dup2(in, 0);
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        if (execFailed[1] != kExecReportFd) ::dup2(execFailed[1], kExecReportFd);
        ::fcntl(kExecReportFd, F_SETFD, FD_CLOEXEC);
        closeInheritedDescriptors();  // everything above it: the parent's files are not ssh's
        ::execvp(argv[0], argv.data());
        const int error = errno;
        [[maybe_unused]] const ssize_t wrote = ::write(kExecReportFd, &error, sizeof error);
        ::_exit(127);
    }
    ::close(in);
    ::close(out[1]);
    ::close(err[1]);
    ::close(execFailed[1]);
    if (pid < 0) {
        ::close(out[0]);
        ::close(err[0]);
        ::close(execFailed[0]);
        throw InputError("ssh: cannot start a process (" + runfiles::errnoText(errno) + ")");
    }
    pid_ = pid;
    ::setpgid(pid, pid);  // also here: whichever of the two runs first
    int execError = 0;
    ssize_t got;
    do {
        got = ::read(execFailed[0], &execError, sizeof execError);
    } while (got < 0 && errno == EINTR);
    ::close(execFailed[0]);
    output_ = out[0];
    error_ = err[0];
    ::fcntl(output_, F_SETFL, O_NONBLOCK);
    ::fcntl(error_, F_SETFL, O_NONBLOCK);
    if (got == static_cast<ssize_t>(sizeof execError)) {
        terminate();
        throw InputError("ssh: cannot run '" + settings.program + "' (" +
                         runfiles::errnoText(execError) + "); install openssh-client");
    }
}

SshProcess::~SshProcess() {
    terminate();
    if (output_ >= 0) ::close(output_);
    if (error_ >= 0) ::close(error_);
}

bool SshProcess::readErrors() {
    if (error_ < 0) return false;
    char chunk[4096];
    for (;;) {
        const ssize_t got = ::read(error_, chunk, sizeof chunk);
        if (got > 0) {
            errors_.append(chunk, static_cast<std::size_t>(got));
            if (errors_.size() > kMaxErrorBytes) errors_.erase(0, errors_.size() - kMaxErrorBytes);
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        ::close(error_);
        error_ = -1;
        return false;
    }
}

bool SshProcess::exited() {
    if (reaped_) return true;
    if (pid_ < 0) return true;
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done != pid_) return false;
    reaped_ = true;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
}

void SshProcess::terminate() {
    if (pid_ < 0 || reaped_) return;
    ::kill(-pid_, SIGTERM);
    for (int waited = 0; waited < kTerminateGraceMilliseconds; waited += 10) {
        if (exited()) break;
        ::poll(nullptr, 0, 10);
    }
    if (!exited()) {
        ::kill(-pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        reaped_ = true;
        status_ = 128 + SIGKILL;
    }
    // The group's other members (a ProxyJump helper) end with ssh; make sure.
    ::kill(-pid_, SIGKILL);
}

std::string sshFailureText(const RemoteRunAddress& address, const std::string& errors, int status) {
    const std::string where = "ssh://" + (address.user.empty() ? "" : address.user + "@") +
                              hostAndPort(address);
    if (contains(errors, "Could not resolve hostname"))
        return "unknown host " + address.host + " (ssh could not resolve it; is it in ~/.ssh/config?)";
    if (contains(errors, "Connection refused"))
        return connectedTo(address, errors) + " refused the connection (no SSH server listening there)";
    if (contains(errors, "Permission denied"))
        return where + ": authentication failed (" + lastLine(errors) +
               "); ssh runs with BatchMode, so it asks for no password: load a key into ssh-agent "
               "or name one in ~/.ssh/config";
    if (contains(errors, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
        return where + ": the host key has changed since it was last accepted; check it with ssh "
                       "in a terminal";
    if (contains(errors, "Host key verification failed") || contains(errors, "host key is known"))
        return where + ": the host key is not known; connect once with ssh in a terminal to check "
                       "and accept it";
    if (contains(errors, "timed out") || contains(errors, "Connection timed out"))
        return "timed out connecting to " + connectedTo(address, errors);
    if (contains(errors, "No route to host")) return connectedTo(address, errors) + ": no route to host";
    if (contains(errors, "Network is unreachable"))
        return connectedTo(address, errors) + ": network is unreachable";
    const std::string line = lastLine(errors);
    if (!line.empty()) return where + ": ssh failed: " + line;
    return where + ": ssh ended with status " + std::to_string(status) + " and said nothing";
}

}  // namespace ampscope
