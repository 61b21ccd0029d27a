#include "run/RunFiles.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace ampscope::runfiles {

std::string joinPath(const std::string& dir, std::string_view name) {
    std::string path = dir;
    if (!path.empty() && path.back() != '/') {
        path += '/';
    }
    path += name;
    return path;
}

std::string errnoText(int error) {
    // std::generic_category().message is strerror without its static buffer.
    return std::generic_category().message(error);
}

namespace {

// Reads fd to its end into out and closes it. Returns 0, or the errno that stopped it.
int readAllAndClose(int fd, std::string& out) {
    char chunk[1 << 16];
    for (;;) {
        const ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            const int error = errno;
            ::close(fd);
            return error;
        }
        if (got == 0) {
            break;
        }
        out.append(chunk, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return 0;
}

}  // namespace

int openRunFile(const std::string& path, int& error) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        error = errno;
        return -1;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        error = kNotPlainFile;
        return -1;
    }
    // Back to blocking reads (a plain file never blocks, but the flag is not ours to keep).
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    error = 0;
    return fd;
}

int readRunFile(const std::string& path, std::string& out) {
    out.clear();
    int error = 0;
    const int fd = openRunFile(path, error);
    if (fd < 0) return error;
    return readAllAndClose(fd, out);
}

std::string runFileErrorText(int error) {
    if (error == ELOOP)
        return "is a symbolic link; a run directory's files must be plain files inside it";
    if (error == kNotPlainFile)
        return "is not a plain file (a directory, FIFO or device); a run directory's files "
               "must be plain files inside it";
    return "cannot read (" + errnoText(error) + ")";
}

int readWholeFile(const std::string& path, std::string& out) {
    out.clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    return readAllAndClose(fd, out);
}

int writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t wrote = ::write(fd, data, size);
        if (wrote < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        if (wrote == 0) {
            return EIO;  // a regular file never writes nothing; do not spin
        }
        data += wrote;
        size -= static_cast<std::size_t>(wrote);
    }
    return 0;
}

std::string jsonErrorText(const char* what) {
    std::string text = what;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find("] ");
        if (close != std::string::npos) {
            text.erase(0, close + 2);
        }
    }
    return text;
}

}  // namespace ampscope::runfiles
