#pragma once
// A TCP port of 127.0.0.1 that stays this process's until it lets it go, for the test
// sshd (SshServer.h) and for "nobody listens here" cases. CTest runs suites in parallel,
// and a port found free by binding and closing can be taken by another suite before the
// sshd that was meant for it starts (or while a test has killed it and is about to start
// it again): the test then talks to the wrong server, or "connection refused" is not.
//
// Two guards, both needed:
// - The port lies below the kernel's ephemeral range (net.ipv4.ip_local_port_range), so
//   no bind to port 0 and no outgoing connection is ever given it: only a program that
//   names the port can take it.
// - Among the suites, which do name ports: each port has a lock file in the temporary
//   folder, held with flock() for as long as the reservation lives. The kernel drops the
//   lock when the process ends however it ends, so a crashed suite leaves no port taken.
//   A lock is per open file, so two reservations in one process exclude each other too.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace ampscope::test {

class ReservedPort {
public:
    // Reserves a port; port() is 0 when none of the range could be had.
    ReservedPort() {
        const int top = ephemeralLow() - 1;
        const int count = top - kLowest + 1;
        if (count <= 0) return;
        // Processes start their search at different places, so that they rarely contend.
        const int start = static_cast<int>(::getpid()) % count;
        for (int i = 0; i < count; ++i) {
            const int candidate = kLowest + (start + i) % count;
            const int lock = lockFile(candidate);
            if (lock < 0) continue;
            if (::flock(lock, LOCK_EX | LOCK_NB) == 0 && bindable(candidate)) {
                lock_ = lock;
                port_ = candidate;
                return;
            }
            ::close(lock);
        }
    }
    ~ReservedPort() {
        if (lock_ >= 0) ::close(lock_);  // closing the file releases its lock
    }
    ReservedPort(const ReservedPort&) = delete;
    ReservedPort& operator=(const ReservedPort&) = delete;

    int port() const { return port_; }

    // The low end of the kernel's ephemeral range (32768 where it cannot be read).
    static int ephemeralLow() {
        std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
        int low = 0;
        return range >> low && low > kLowest ? low : 32768;
    }

    static constexpr int kLowest = 20000;

private:
    // The lock file of `port`, shared by every user (the permission cases run as
    // another user than root): opened read-only, which is all flock() needs, and created
    // readable by all when it is not there yet. In /tmp, not TMPDIR: suites point TMPDIR
    // at folders of their own, and the locks must be one set for the machine.
    static int lockFile(int port) {
        const std::string path = "/tmp/ampscope-test-port-" + std::to_string(port) + ".lock";
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0444);
            if (fd >= 0) ::fchmod(fd, 0444);  // whatever the umask
        }
        return fd;
    }

    static bool bindable(int port) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return false;
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
        ::close(fd);
        return bound;
    }

    int lock_ = -1;
    int port_ = 0;
};

}  // namespace ampscope::test
